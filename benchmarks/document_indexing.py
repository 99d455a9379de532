"""Indexing PDF, HTML and Word files against plain text of the same words: pages per second and peak memory.

Generates one document of ``--pages`` pages in each format from the same sentences (a PDF page per page, an
HTML section and a Word heading per page, and a ``.txt`` file of the same text as the baseline), then indexes
each into a fresh store with ``selfrag index``'s own function, in a child process of its own so that each
peak resident memory is its own. Reading (the loader and the splitter) is timed apart from the whole run
(reading, embedding and writing), since embedding is the same work for every format.

    python benchmarks/document_indexing.py --pages 300
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FORMATS = ("txt", "pdf", "html", "docx")
WORDS = ("The committee reviewed the quarterly figures and approved the budget for the northern depot. "
         "Staff at the site asked for longer opening hours, and the manager agreed to a trial in spring. ")


def page_text(number: int) -> str:
    return f"Page {number}. " + WORDS * 4


def write(fmt: str, path: Path, pages: int) -> None:
    """One document of ``pages`` pages in ``fmt``."""
    texts = [page_text(n) for n in range(1, pages + 1)]
    if fmt == "txt":
        path.write_text("\n\n".join(texts), encoding="utf-8")
    elif fmt == "html":
        body = "".join(f"<h2>Part {n}</h2><p>{t}</p>" for n, t in enumerate(texts, 1))
        path.write_text(f"<html><head><title>Report</title></head><body><main>{body}</main></body></html>",
                        encoding="utf-8")
    elif fmt == "docx":
        import docx

        document = docx.Document()
        for n, text in enumerate(texts, 1):
            document.add_heading(f"Part {n}", 1)
            document.add_paragraph(text)
        document.save(str(path))
    else:
        from reportlab.lib.pagesizes import A4
        from reportlab.lib.styles import getSampleStyleSheet
        from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

        style = getSampleStyleSheet()["BodyText"]
        story = []
        for text in texts:
            story += [Paragraph(text, style), PageBreak()]
        SimpleDocTemplate(str(path), pagesize=A4, title="Report").build(story)


def child(fmt: str, pages: int, folder: Path) -> dict[str, float]:
    """Index one format in this process and report its figures."""
    from selfrag_langchain.corpus.indexing import index_paths, load_documents
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    path = folder / f"report.{fmt}"
    write(fmt, path, pages)
    embeddings = MiniLMEmbeddings()
    embeddings.embed_query("warm up")
    started = time.perf_counter()
    corpus = load_documents([path])
    read = time.perf_counter() - started
    started = time.perf_counter()
    report = index_paths([path], folder / "store", progress=False, embeddings=embeddings)
    whole = time.perf_counter() - started
    return {"format": fmt, "pages": pages, "chunks": report.chunks_added, "read_s": round(read, 2),
            "read_pages_per_s": round(pages / read, 1), "index_s": round(whole, 2),
            "index_pages_per_s": round(pages / whole, 1), "chunks_read": len(corpus.documents),
            "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--child", choices=FORMATS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.pages, args.folder)))
        return
    rows = []
    for fmt in FORMATS:
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run([sys.executable, __file__, "--pages", str(args.pages), "--child", fmt,
                                   "--folder", folder], capture_output=True, text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    base = rows[0]
    print(f"{args.pages} pages of the same text in each format; each row in a fresh process and store")
    print("| format | chunks | read s | read pages/s | index s (read, embed, write) | index pages/s | vs .txt | "
          "peak MiB |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['format']} | {r['chunks']} | {r['read_s']} | {r['read_pages_per_s']} | {r['index_s']} | "
              f"{r['index_pages_per_s']} | {r['index_s'] / base['index_s']:.2f}x | {r['peak_mib']} |")


if __name__ == "__main__":
    main()

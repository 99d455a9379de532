// The web chat of `selfrag serve`: one conversation at a time, its id issued by the server and kept in this
// browser's localStorage (the server keeps its turns), answers streamed as their segments become final,
// every [n] marker a link that opens the cited passage with the judge's verdict on its sentence beside it,
// and each answer's judgements under it. A server that asks for a client key gets it once per browser
// session: the page asks when the server says 401.
"use strict";

const conversation = document.getElementById("conversation");
const form = document.getElementById("ask");
const question = document.getElementById("question");
const send = document.getElementById("send");
const dialog = document.getElementById("passage");

const keyDialog = document.getElementById("key");
let session = new URLSearchParams(location.search).get("session") || localStorage.getItem("selfrag-session");

// The client key, asked for once and kept for this browser session.
function askForKey(again) {
  document.getElementById("key-note").textContent = again ? "That key was not accepted." : "";
  document.getElementById("key-input").value = "";
  keyDialog.showModal();
  return new Promise((resolve) => {
    keyDialog.addEventListener("close", () => {
      sessionStorage.setItem("selfrag-key", document.getElementById("key-input").value.trim());
      resolve();
    }, { once: true });
  });
}

// fetch with the client key, asking for it while the server answers 401.
async function api(path, options = {}) {
  for (let tries = 0; ; tries++) {
    const key = sessionStorage.getItem("selfrag-key");
    const headers = { ...(options.headers || {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
    const reply = await fetch(path, { ...options, headers });
    if (reply.status !== 401) return reply;
    await askForKey(tries > 0 || Boolean(key));
  }
}

async function newSession() {
  const reply = await api("/v1/selfrag/sessions", { method: "POST" });
  if (!reply.ok) throw new Error((await reply.json()).error.message);
  session = (await reply.json()).session_id;
  localStorage.setItem("selfrag-session", session);
  history.replaceState(null, "", location.pathname);
}

function turn(role) {
  const div = document.createElement("div");
  div.className = `turn ${role}`;
  const body = document.createElement("div");
  body.className = "body";
  div.appendChild(body);
  conversation.appendChild(div);
  return div;
}

// The answer's text with each [n] marker as a link to passage n and, beside it, the judge's verdict on the
// claim it ends (text set as text: nothing is parsed as HTML).
function renderAnswer(div, text, passages, support, declined) {
  div.classList.toggle("declined", Boolean(declined));
  const body = div.querySelector(".body");
  body.replaceChildren();
  const byIndex = new Map((passages || []).map((p) => [String(p.index), p]));
  let last = 0;
  for (const match of text.matchAll(/\[(\d+)\]/g)) {
    body.append(text.slice(last, match.index));
    const link = document.createElement("a");
    link.className = "cite";
    link.href = "#";
    link.dataset.citation = match[1];
    link.textContent = match[0];
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const passage = byIndex.get(match[1]);
      if (passage) openPassage(match[1], passage);
    });
    body.append(link);
    const judged = (support || []).find((s) => s.start_index <= match.index && match.index < s.end_index);
    if (judged) {
      const badge = document.createElement("span");
      badge.className = `verdict ${judged.verdict.replaceAll(" ", "-")}`;
      badge.textContent = judged.verdict;
      badge.title = `The judge rated this sentence ${judged.verdict} by passage [${match[1]}]`;
      body.append(badge);
    }
    last = match.index + match[0].length;
  }
  body.append(text.slice(last));
}

function renderExtras(div, passages, judgements) {
  if (passages && passages.length) {
    const list = document.createElement("ol");
    list.className = "sources";
    for (const p of passages) {
      const item = document.createElement("li");
      item.value = p.index;
      const name = p.title || p.source || `passage ${p.index}`;
      item.textContent = p.location ? `${name} (${p.location})` : name;
      list.appendChild(item);
    }
    div.appendChild(list);
  }
  if (judgements && judgements.length) {
    const details = document.createElement("details");
    details.className = "judgements";
    const summary = document.createElement("summary");
    summary.textContent = "How the evidence was judged";
    const pre = document.createElement("pre");
    pre.textContent = judgements.join("\n");
    details.append(summary, pre);
    div.appendChild(details);
  }
}

function openPassage(number, passage) {
  document.getElementById("passage-title").textContent = `[${number}] ${passage.title || "Passage"}`;
  document.getElementById("passage-source").textContent = passage.location || passage.url || passage.source || "";
  document.getElementById("passage-text").textContent = passage.text || "";
  dialog.showModal();
}

async function loadHistory() {
  conversation.replaceChildren();
  let reply = session ? await api(`/v1/selfrag/sessions/${encodeURIComponent(session)}`) : null;
  if (!reply || reply.status === 404) { // none yet, or deleted, expired, or another key's: a new one
    await newSession();
    reply = await api(`/v1/selfrag/sessions/${encodeURIComponent(session)}`);
  }
  if (!reply.ok) return;
  for (const message of (await reply.json()).messages) {
    const div = turn(message.role);
    if (message.role === "user") {
      div.querySelector(".body").textContent = message.content;
    } else {
      renderAnswer(div, message.content, message.citations, message.support, message.declined);
      renderExtras(div, message.citations, message.judgements);
    }
  }
  window.scrollTo(0, document.body.scrollHeight);
}

// Server-sent events from a POST: read the body, one `data:` line per event.
async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 2);
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return;
      yield JSON.parse(data);
    }
  }
}

async function ask(text) {
  turn("user").querySelector(".body").textContent = text;
  const div = turn("assistant");
  div.classList.add("writing");
  send.disabled = true;
  let answer = "";
  try {
    const response = await api(`/v1/selfrag/sessions/${encodeURIComponent(session)}/messages`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content: text }),
    });
    if (!response.ok) throw new Error((await response.json()).error.message);
    for await (const event of events(response)) {
      if (event.error) throw new Error(event.error.message);
      const choice = event.choices[0];
      if (choice.delta.content) {
        answer += choice.delta.content;
        renderAnswer(div, answer, []);
      }
      if (choice.finish_reason) {
        renderAnswer(div, answer, event.citations, event.support, event.declined);
        renderExtras(div, event.citations, event.judgements);
        div.dataset.done = "true";
      }
    }
  } catch (error) {
    const note = document.createElement("p");
    note.className = "error";
    note.textContent = `Error: ${error.message}`;
    div.appendChild(note);
  } finally {
    div.classList.remove("writing");
    send.disabled = false;
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = question.value.trim();
  if (!text || send.disabled) return; // one question at a time: the turns of a session are stored in order
  question.value = "";
  ask(text);
});
question.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});
document.getElementById("new-chat").addEventListener("click", async () => {
  await newSession();
  loadHistory();
});
document.getElementById("delete-chat").addEventListener("click", async () => {
  if (!confirm("Delete this conversation from the server?")) return;
  await api(`/v1/selfrag/sessions/${encodeURIComponent(session)}`, { method: "DELETE" });
  await newSession();
  loadHistory();
});

loadHistory();

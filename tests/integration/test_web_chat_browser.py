"""The web chat of `selfrag serve` in a real headless browser (Debian's chromium through Selenium), on the
real models and a real store, with a client key: give the key the page asks for, type a question, see the
answer with a citation marker and the judge's verdict beside it, open the marker and see the cited passage,
reload and see the conversation, restart the server and see it still, delete it and see it gone."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers import start_selfrag_serve

pytestmark = pytest.mark.slow

QUESTION = "Who designed the Eiffel Tower?"
KEY = "browser-test-key-0123"


def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver")
    return browser, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = _chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,900"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture(scope="module")
def store(passages_store: Path) -> Path:
    return passages_store


def _serve(store: Path, port: int | None = None) -> tuple[Any, str]:
    """``port`` restarts on the port of before: the same origin, so the page's storage stays."""
    return start_selfrag_serve("--store", str(store), "--k", "2", "--max-depth", "2", "--client-key", KEY,
                               "--history", str(store.parent / "chats.sqlite3"), port=port)


def _wait(browser: Any, css: str, seconds: float = 300) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, seconds).until(expected_conditions.visibility_of_element_located(
        (By.CSS_SELECTOR, css)))


def test_key_ask_open_a_citation_reload_restart_and_delete(browser: Any, store: Path) -> None:
    import httpx
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    process, url = _serve(store)
    try:
        browser.get(f"{url}/")
        _wait(browser, "dialog#key[open]", 30)  # the page asks for the key once
        browser.find_element(By.ID, "key-input").send_keys("not-the-key-000")
        browser.find_element(By.ID, "key-send").click()
        _wait(browser, "dialog#key[open]", 30)
        assert "not accepted" in browser.find_element(By.ID, "key-note").text
        browser.find_element(By.ID, "key-input").send_keys(KEY)
        browser.find_element(By.ID, "key-send").click()
        _wait(browser, "#question").send_keys(QUESTION)
        browser.find_element(By.ID, "send").click()
        _wait(browser, '.turn.assistant[data-done="true"], .turn.assistant .error')  # an answer, or why not
        errors = browser.find_elements(By.CSS_SELECTOR, ".turn.assistant .error")
        assert not errors, errors[0].text
        answer = browser.find_element(By.CSS_SELECTOR, '.turn.assistant[data-done="true"]')
        assert "Gustave Eiffel" in answer.text  # the designer, not the question's word
        markers = answer.find_elements(By.CSS_SELECTOR, "a.cite")
        assert markers and markers[0].text == "[1]"
        verdicts = [v.text for v in answer.find_elements(By.CSS_SELECTOR, "a.cite + .verdict")]
        assert verdicts and set(verdicts) <= {"supported", "partially supported", "not supported"}  # beside each
        assert "How the evidence was judged" in answer.text

        markers[0].click()
        dialog = _wait(browser, "dialog#passage[open]", 10)
        assert "Eiffel Tower" in dialog.find_element(By.ID, "passage-title").text
        assert "Gustave Eiffel" in dialog.find_element(By.ID, "passage-text").text
        browser.find_element(By.ID, "passage-close").click()
        browser.save_screenshot(str(store.parent / "web-chat.png"))

        browser.refresh()
        _wait(browser, ".turn.assistant a.cite", 30)
        assert browser.find_element(By.CSS_SELECTOR, ".turn.user").text == QUESTION
    finally:
        process.terminate()
        process.wait(timeout=30)

    process, url = _serve(store, int(url.rsplit(":", 1)[1]))  # a restart: the conversation is in the file
    try:
        browser.get(f"{url}/")  # the key is kept for the browser session: not asked again
        restored = _wait(browser, ".turn.assistant a.cite", 30)
        assert restored.text == "[1]"
        restored_verdicts = browser.find_elements(By.CSS_SELECTOR, ".turn.assistant a.cite + .verdict")
        assert [v.text for v in restored_verdicts] == verdicts  # kept with the conversation
        assert browser.find_element(By.CSS_SELECTOR, ".turn.user").text == QUESTION
        session = browser.execute_script("return localStorage.getItem('selfrag-session')")
        assert len(session) == 32  # issued by the server

        browser.find_element(By.ID, "delete-chat").click()
        browser.switch_to.alert.accept()
        WebDriverWait(browser, 30).until(lambda b: not b.find_elements(By.CSS_SELECTOR, ".turn"))
        gone = httpx.get(f"{url}/v1/selfrag/sessions/{session}", headers={"Authorization": f"Bearer {KEY}"})
        assert gone.status_code == 404
        assert browser.execute_script("return localStorage.getItem('selfrag-session')") != session
    finally:
        process.terminate()
        process.wait(timeout=30)

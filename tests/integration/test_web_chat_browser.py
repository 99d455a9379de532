"""The web chat of `selfrag serve` in a real headless browser (Debian's chromium through Selenium), on the
real models and a real store: type a question, see the answer with a citation marker, open the marker and
see the cited passage, reload and see the conversation, restart the server and see it still."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers import start_selfrag_serve

pytestmark = pytest.mark.slow

QUESTION = "Who designed the Eiffel Tower?"
SESSION = "browser-test"


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


def _serve(store: Path) -> tuple[Any, str]:
    return start_selfrag_serve("--store", str(store), "--k", "2", "--max-depth", "2",
                               "--history", str(store.parent / "chats.sqlite3"))


def _wait(browser: Any, css: str, seconds: float = 300) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, seconds).until(expected_conditions.visibility_of_element_located(
        (By.CSS_SELECTOR, css)))


def test_ask_open_a_citation_reload_and_restart(browser: Any, store: Path) -> None:
    from selenium.webdriver.common.by import By

    process, url = _serve(store)
    try:
        browser.get(f"{url}/?session={SESSION}")
        _wait(browser, "#question").send_keys(QUESTION)
        browser.find_element(By.ID, "send").click()
        _wait(browser, '.turn.assistant[data-done="true"], .turn.assistant .error')  # an answer, or why not
        errors = browser.find_elements(By.CSS_SELECTOR, ".turn.assistant .error")
        assert not errors, errors[0].text
        answer = browser.find_element(By.CSS_SELECTOR, '.turn.assistant[data-done="true"]')
        assert "Eiffel" in answer.text
        markers = answer.find_elements(By.CSS_SELECTOR, "a.cite")
        assert markers and markers[0].text == "[1]"
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

    process, url = _serve(store)  # a restart: the conversation is in the history file
    try:
        browser.get(f"{url}/?session={SESSION}")
        restored = _wait(browser, ".turn.assistant a.cite", 30)
        assert restored.text == "[1]"
        assert browser.find_element(By.CSS_SELECTOR, ".turn.user").text == QUESTION
    finally:
        process.terminate()
        process.wait(timeout=30)

"""The picture of the web chat in docs/web-chat-and-server.md: ask a running `selfrag serve` one question in
headless chromium, open the first citation and the judgements, and save the page.

    selfrag serve &                      # the embedded default: demo corpus, SmolLM2, the calibrated judge
    .venv/bin/python scripts/web_chat_screenshot.py http://127.0.0.1:8000 docs/web-chat.png
"""

from __future__ import annotations

import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

QUESTION = "Who painted the Mona Lisa?"


def main(url: str, out: str) -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,820"):
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))
    try:
        browser.get(f"{url}/?session=readme-picture")
        browser.find_element(By.ID, "question").send_keys(QUESTION)
        browser.find_element(By.ID, "send").click()
        answer = WebDriverWait(browser, 600).until(expected_conditions.visibility_of_element_located(
            (By.CSS_SELECTOR, '.turn.assistant[data-done="true"]')))
        answer.find_element(By.CSS_SELECTOR, "details.judgements summary").click()
        answer.find_element(By.CSS_SELECTOR, "a.cite").click()
        browser.save_screenshot(out)
    finally:
        browser.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

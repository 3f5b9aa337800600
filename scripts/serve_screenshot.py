"""Takes the README's screenshot of `codesift serve` (docs/serve.png): the page over this
project's own Python package, a search with grouped hits and a Replace preview open.

Needs Chromium, chromium-driver and selenium (as the browser tests do):
    python scripts/serve_screenshot.py [--out docs/serve.png]
Nothing is edited: the preview is a dry run.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from codesift import Workspace
from codesift.serve import Server

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(REPO / "docs" / "serve.png"))
    parser.add_argument("--query", default="def edit_result")
    args = parser.parse_args()

    server = Server(Workspace(REPO / "python"), port=0).start()
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"):
        options.add_argument(argument)
    driver = webdriver.Chrome(
        options=options, service=Service(executable_path=shutil.which("chromedriver"))
    )
    wait = WebDriverWait(driver, 20)
    try:
        driver.get(server.page_url)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results .state"))
        for prompt in ("List codesift", "Read codesift/serve/app.py:1-5", "search_result_id"):
            box = driver.find_element(By.ID, "q")
            box.clear()
            box.send_keys(prompt, "\n")
            wait.until(
                lambda d: d.find_element(By.ID, "results").get_attribute("aria-busy") is None
            )
        box = driver.find_element(By.ID, "q")
        box.clear()
        box.send_keys(args.query, "\n")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".line.hit"))
        row = driver.find_elements(By.CSS_SELECTOR, ".line.hit")[0]
        driver.execute_script("arguments[0].focus()", row)
        row.find_element(By.CSS_SELECTOR, "button.replace").click()
        field = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".replace-box textarea"))
        field.clear()
        field.send_keys("def edit_hit")
        driver.find_element(By.CSS_SELECTOR, ".replace-box button.preview").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".replace-box .diff"))
        driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(args.out)
        print(f"saved {args.out}")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()

"""The page of `codesift serve` in a real headless Chromium (Debian's `chromium` and
`chromium-driver`, driven by selenium), used as a person would: search, read grouped and
highlighted hits, open a file at a line, replace a hit with a preview and apply it (and see the
file change on disk), the Error state of a bad regex, the Empty state, the history, the
keyboard, a narrow window.

Without Chromium these tests are skipped when nobody could install it here (not root), and
fail when root could have (scripts/test.sh installs it with apt-get)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from serve_helpers import live_server

from codesift.serve import Server

FILES = {
    "src/users.py": (
        "import db\n"
        "\n"
        "def getUser(id):\n"
        "    return db.getUser(id)\n"
        "\n"
        "def listUsers():\n"
        "    return [getUser(i) for i in range(3)]\n"
    ),
    "web/main.ts": "import { getUser } from './api';\n\nconsole.log(getUser(1));\n",
    "README.md": "# Demo\n",
}
WAIT_SECONDS = 20
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _find_chromium() -> tuple[str | None, str | None]:
    browser = next((p for p in map(shutil.which, CHROMIUM_NAMES) if p), None)
    return browser, shutil.which("chromedriver")


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    browser, chromedriver = _find_chromium()
    if browser is None or chromedriver is None:
        missing = " and ".join(
            name
            for name, found in (("chromium", browser), ("chromium-driver", chromedriver))
            if found is None
        )
        if os.geteuid() == 0 and shutil.which("apt-get"):
            pytest.fail(
                f"{missing} missing: scripts/test.sh installs it as root "
                "(apt-get install -y chromium chromium-driver)"
            )
        pytest.skip(
            f"headless browser tests need {missing}, which is not installed and cannot be "
            "installed without root: sudo apt-get install -y chromium chromium-driver"
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is missing: pip install -e '.[test]'")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=1280,900",
    ):
        options.add_argument(argument)
    chrome = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    chrome.set_page_load_timeout(WAIT_SECONDS)
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture
def root(tree) -> Path:
    return tree(FILES)


class Page:
    """The page in the browser, with the waits a person's eyes do."""

    def __init__(self, driver: Any, server: Server) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import WebDriverWait

        self.d, self.server, self.By, self.Keys = driver, server, By, Keys
        self._wait = WebDriverWait(driver, WAIT_SECONDS)

    def open(self, url: str | None = None) -> Page:
        self.d.get(url or self.server.page_url)
        self.until(lambda: self.css_one("#results .state") or self.css_one("#results .file"))
        return self

    def until(self, condition: Callable[[], Any], message: str = "") -> Any:
        return self._wait.until(lambda _: condition(), message)

    def css(self, selector: str, within: Any = None) -> list[Any]:
        return (within or self.d).find_elements(self.By.CSS_SELECTOR, selector)

    def css_one(self, selector: str, within: Any = None) -> Any:
        found = self.css(selector, within)
        return found[0] if found else None

    def search(self, text: str) -> None:
        box = self.d.find_element(self.By.ID, "q")
        box.clear()
        box.send_keys(text, self.Keys.ENTER)
        self.settled()

    def settled(self) -> None:
        self.until(
            lambda: (
                not self.css("#results [data-state=loading]")
                and self.css_one("#results").get_attribute("aria-busy") is None
            ),
            "the page stayed in its Loading state",
        )

    def state(self) -> str | None:
        found = self.css_one("#results .state")
        return found.get_attribute("data-state") if found else None

    def text(self, selector: str) -> str:
        return self.css_one(selector).text

    def js(self, script: str, *args: Any) -> Any:
        return self.d.execute_script(script, *args)


@pytest.fixture
def page(driver: Any, server: Server) -> Page:
    return Page(driver, server).open()


def test_search_shows_hits_grouped_by_file_and_highlighted(page: Page, server: Server) -> None:
    page.search("getuser")
    assert page.state() is None
    files = page.css("#results section.file")
    assert [f.get_attribute("data-file") for f in files] == ["src/users.py", "web/main.ts"]
    assert page.text(".count") == "3 matches"
    users, main = files
    hits = page.css(".line.hit", users)
    assert [h.find_element(page.By.CSS_SELECTOR, ".ln").text for h in hits] == ["3", "4", "7"]
    assert [m.text for m in page.css("mark", users)] == ["getUser", "getUser", "getUser"]
    # the hit line reads whole, the match inside it highlighted
    assert hits[0].find_element(page.By.CSS_SELECTOR, ".code").text == "def getUser(id):"
    # context lines around hits, merged when hits are close
    context = [
        c.find_element(page.By.CSS_SELECTOR, ".ln").text for c in page.css(".line.ctx", users)
    ]
    assert context == ["1", "2", "5", "6"]
    assert [m.text for m in page.css("mark", main)] == ["getUser", "getUser"]
    stats = page.text("#stats")
    assert re.fullmatch(r"5 matches in 2 files · \d+ ms", stats), stats
    # the URL holds the query (shareable) and no longer the token
    query = parse_qs(urlsplit(page.d.current_url).query)
    assert query == {"q": ["getuser"]}
    assert page.js("return sessionStorage.getItem('codesift.token')") == server.token
    assert page.css_one("#more").is_displayed() is False


def test_click_on_a_hit_opens_the_file_at_that_line(page: Page) -> None:
    page.search("listUsers")
    page.css_one(".line.hit").click()
    page.until(lambda: page.css_one("#viewer .line.target"), "the file did not open")
    viewer = page.css_one("#viewer")
    assert viewer.is_displayed()
    assert page.text("#viewer-path") == "src/users.py"
    target = page.css_one("#viewer .line.target")
    assert target.get_attribute("data-line") == "6"
    assert target.text.replace("\n", " ") == "6 def listUsers():"
    rows = page.css("#viewer .line")
    assert len(rows) == 7  # the whole (short) file, numbered
    page.d.find_element(page.By.ID, "viewer-close").click()
    assert not viewer.is_displayed()


def test_replace_a_hit_with_preview_then_apply(page: Page, root: Path) -> None:
    page.search("getUser")
    rows = page.css("section.file[data-file='src/users.py'] .line.hit")
    before = (root / "src/users.py").read_text()

    def replace(row: Any, new: str) -> Any:
        page.d.execute_script("arguments[0].focus()", row)
        row.find_element(page.By.CSS_SELECTOR, "button.replace").click()
        box = page.until(lambda: page.css_one(".replace-box"))
        field = box.find_element(page.By.TAG_NAME, "textarea")
        assert field.get_attribute("value") == "getUser"
        field.clear()
        field.send_keys(new)
        box.find_element(page.By.CSS_SELECTOR, "button.preview").click()
        page.until(lambda: page.css_one(".replace-box .diff"), "no diff preview")
        return box

    box = replace(rows[0], "fetchUser")
    diff = [line.text for line in page.css(".replace-box .diff div")]
    assert "-def getUser(id):" in diff and "+def fetchUser(id):" in diff
    assert "Preview, nothing written" in box.text
    assert (root / "src/users.py").read_text() == before  # a preview writes nothing
    box.find_element(page.By.CSS_SELECTOR, "button.apply").click()
    page.until(lambda: page.css_one(".replace-box .msg.ok"), "the edit was not applied")
    assert "Edited src/users.py: 1 replacement at line 3" in page.text(".replace-box .msg.ok")
    assert (root / "src/users.py").read_text() == before.replace("def getUser", "def fetchUser")
    # the new text shows in place
    assert rows[0].find_element(page.By.CSS_SELECTOR, ".code").text == "def fetchUser(id):"
    assert "edited" in rows[0].get_attribute("class")

    # another hit of the same search, edited in a later request: its id still applies
    page.js("document.querySelector('.replace-box').remove()")
    replace(rows[2], "fetchUser")
    page.css_one(".replace-box button.apply").click()
    page.until(lambda: page.css_one(".replace-box .msg.ok"))
    assert (root / "src/users.py").read_text() == before.replace(
        "def getUser", "def fetchUser"
    ).replace("[getUser(", "[fetchUser(")


def test_apply_without_the_token_is_refused(driver: Any, server: Server, root: Path) -> None:
    page = Page(driver, server).open(server.url)  # the URL without ?token=
    assert page.js("return sessionStorage.getItem('codesift.token')") is None
    page.until(lambda: "view only" in page.text("#mode"))
    page.search("listUsers")
    row = page.css_one(".line.hit")
    page.js("arguments[0].focus()", row)
    row.find_element(page.By.CSS_SELECTOR, "button.replace").click()
    field = page.until(lambda: page.css_one(".replace-box textarea"))
    field.send_keys("X")
    page.css_one(".replace-box button.preview").click()
    page.until(lambda: page.css_one(".replace-box button.apply")).click()
    error = page.until(lambda: page.css_one(".replace-box .msg.error"))
    assert "needs the server's token" in error.text and "?token=" in error.text
    assert (root / "src/users.py").read_text() == FILES["src/users.py"]


def test_bad_regex_shows_the_error_state_inline(page: Page) -> None:
    page.css_one("#regex").click()
    assert page.css_one("#regex").get_attribute("aria-pressed") == "true"
    page.search("get(User")
    assert page.state() == "error"
    inline = page.css_one("#inline-error")
    assert inline.is_displayed()
    assert "regex" in inline.text.lower() or "pattern" in inline.text.lower(), inline.text
    assert "Invalid regular expression" in page.text("#results .state")
    assert parse_qs(urlsplit(page.d.current_url).query)["regex"] == ["1"]
    # fixing the pattern clears the message
    page.search("get\\(User|getUser\\(")
    assert not page.css_one("#inline-error").is_displayed()
    assert page.state() is None and len(page.css(".line.hit")) == 4  # "{ getUser }" is no call


def test_no_match_shows_the_empty_state(page: Page) -> None:
    page.search("nothing_matches_this")
    assert page.state() == "empty"
    assert 'No matches for "nothing_matches_this"' in page.text("#results .state")
    assert page.text("#stats").startswith("0 matches")


def test_history_reruns_and_the_url_reloads(page: Page) -> None:
    page.search("getUser")
    page.search("listUsers")
    page.search("Read README.md")
    items = page.css("#history-list li")
    assert [i.find_element(page.By.CSS_SELECTOR, ".h-prompt").text for i in items] == [
        "Read README.md",
        "listUsers",
        "getUser",
    ]
    assert "5 matches in 2 files" in items[2].text
    assert page.css_one("#results section.file[data-file='README.md']")
    items[2].find_element(page.By.TAG_NAME, "button").click()
    page.until(lambda: len(page.css(".line.hit")) == 5, "the history entry did not run again")
    assert page.css_one("#q").get_attribute("value") == "getUser"
    # reload: the URL runs the query again, the history is still there (same tab)
    page.d.refresh()
    page.until(lambda: len(page.css(".line.hit")) == 5)
    assert len(page.css("#history-list li")) == 3
    # a shared link runs its query
    page.open(page.server.url + "?q=listUsers&tool=search")
    page.until(lambda: len(page.css(".line.hit")) == 1)
    assert page.css_one("#tool").get_attribute("value") == "search"


def test_commands_and_keyboard(page: Page) -> None:
    page.search("List src")
    assert [e.text for e in page.css(".entries button")] == ["users.py"]
    page.search("Read src")  # a directory: listed, and the page says why
    assert "is a directory" in page.text(".note")
    page.search("Read src/users.py:3-4")
    assert [r.text.replace("\n", " ") for r in page.css("#results .line")] == [
        "3 def getUser(id):",
        "4     return db.getUser(id)",
    ]
    page.search("Replace 'a' with 'b'")
    assert page.state() == "error" and "Accepted forms" in page.text("#results .state")

    page.search("getUser")
    body = page.css_one("body")
    page.js("document.activeElement.blur()")
    body.send_keys("j")
    focused = page.js("return document.activeElement.dataset.line")
    assert focused == "3"
    body = page.d.switch_to.active_element
    body.send_keys("j")
    assert page.js("return document.activeElement.dataset.line") == "4"
    page.d.switch_to.active_element.send_keys("o")
    page.until(lambda: page.css_one("#viewer .line.target"))
    assert page.css_one("#viewer .line.target").get_attribute("data-line") == "4"
    page.d.switch_to.active_element.send_keys(page.Keys.ESCAPE)
    assert not page.css_one("#viewer").is_displayed()
    page.js("document.activeElement.blur()")
    page.css_one("body").send_keys("/")
    assert page.js("return document.activeElement.id") == "q"


def test_narrow_window_stays_readable(page: Page) -> None:
    page.d.set_window_size(420, 900)
    try:
        page.search("getUser")
        width = page.js("return document.documentElement.clientWidth")
        assert page.js("return document.documentElement.scrollWidth") <= width
        assert page.css_one("#submit").is_displayed() and page.css_one("#q").is_displayed()
        # the history moves below the results instead of squeezing them
        results = page.css_one("#results").rect
        history = page.css_one("#history").rect
        assert history["y"] >= results["y"] + results["height"] - 1
        assert results["width"] >= width - 40
    finally:
        page.d.set_window_size(1280, 900)


def test_loading_state_while_the_server_works(page: Page) -> None:
    # Hold the page's next request until the test lets it go: the Loading state must show.
    page.js(
        """
        const realFetch = window.fetch;
        window.fetch = (...args) => new Promise((resolve) => {
          window.releaseFetch = () => resolve(realFetch(...args));
        });
        """
    )
    box = page.css_one("#q")
    box.clear()
    box.send_keys("getUser", page.Keys.ENTER)
    page.until(lambda: page.state() == "loading", "no Loading state")
    assert "Loading" in page.text("#results .state")
    assert page.css_one("#results").get_attribute("aria-busy") == "true"
    assert page.css_one("#submit").get_attribute("disabled") is not None
    page.until(lambda: page.js("return typeof window.releaseFetch === 'function'"))
    page.js("window.releaseFetch()")
    page.settled()
    assert len(page.css(".line.hit")) == 5
    assert page.css_one("#submit").get_attribute("disabled") is None


def test_show_more_pages_through_a_long_result(driver: Any, tree) -> None:
    many = tree({"big.txt": "".join(f"needle {n}\n" for n in range(1, 151)), "z.txt": "needle\n"})
    with live_server(many) as server:
        page = Page(driver, server).open()
        page.search("needle")
        hits = page.css(".line.hit")
        assert len(hits) == 100
        assert page.text("#stats").startswith("100+ matches in 1+ files")
        more = page.css_one("#more")
        assert more.is_displayed()
        more.click()
        page.until(lambda: len(page.css(".line.hit")) == 151, "the next page did not come")
        # the deterministic order: the first page is still first, then the rest, then z.txt
        numbers = [
            h.find_element(page.By.CSS_SELECTOR, ".code").text for h in page.css(".line.hit")
        ]
        assert numbers[:3] == ["needle 1", "needle 2", "needle 3"]
        assert numbers[99:101] == ["needle 100", "needle 101"]
        assert numbers[-1] == "needle"
        assert [f.get_attribute("data-file") for f in page.css("section.file")] == [
            "big.txt",
            "z.txt",
        ]
        assert re.fullmatch(r"151 matches in 2 files · \d+ ms", page.text("#stats"))
        assert not page.css_one("#more").is_displayed()


def test_read_only_server_offers_no_replace(driver: Any, root: Path) -> None:
    with live_server(root, read_only=True) as server:
        page = Page(driver, server).open()
        page.until(lambda: page.text("#mode") == "read-only")
        page.search("getUser")
        assert len(page.css(".line.hit")) == 5
        assert page.css("button.replace") == []

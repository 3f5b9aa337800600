// codesift serve: the page. Plain JavaScript, no dependencies, works offline.
// Every request goes to this server's JSON API; every text from it is put in the page with
// textContent (never as HTML).
"use strict";

(function () {
  const PAGE = 100; // hits per page; "Show more" asks for the next page in the same order
  const CONTEXT = 2; // context lines around each hit
  const HISTORY_KEY = "codesift.history";
  const TOKEN_KEY = "codesift.token";
  const HISTORY_MAX = 20;

  const $ = (id) => document.getElementById(id);
  const form = $("query");
  const input = $("q");
  const toolSelect = $("tool");
  const caseButton = $("case");
  const regexButton = $("regex");
  const includeInput = $("include");
  const submitButton = $("submit");
  const inlineError = $("inline-error");
  const stats = $("stats");
  const results = $("results");
  const moreButton = $("more");
  const historyList = $("history-list");
  const historyEmpty = $("history-empty");
  const viewer = $("viewer");
  const viewerBody = $("viewer-body");

  let info = { read_only: false };
  let pages = 1;
  let sequence = 0; // answers to older requests are dropped
  let current = null; // the query on screen

  // -- the token: taken from the URL once, then kept for this tab only ------------------------
  const startUrl = new URL(window.location.href);
  if (startUrl.searchParams.has("token")) {
    sessionStorage.setItem(TOKEN_KEY, startUrl.searchParams.get("token"));
    startUrl.searchParams.delete("token");
    history.replaceState(null, "", startUrl.pathname + startUrl.search + startUrl.hash);
  }
  const token = () => sessionStorage.getItem(TOKEN_KEY);

  // -- helpers -------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  async function api(path, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const saved = token();
    if (saved) headers.Authorization = "Bearer " + saved;
    let response;
    try {
      response = await fetch(path, {
        method: body === undefined ? "GET" : "POST",
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new Error("The server does not answer: is codesift serve still running?");
    }
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      throw new Error(`The server answered HTTP ${response.status} without JSON.`);
    }
    if (!response.ok) {
      const error = new Error((data && data.error && data.error.message) || `HTTP ${response.status}`);
      error.kind = data && data.error && data.error.type;
      error.status = response.status;
      throw error;
    }
    return data;
  }

  const plural = (n, one, many) => `${n.toLocaleString()} ${n === 1 ? one : many || one + "s"}`;
  const codePoints = (text) => Array.from(text);

  function setToggle(button, on) {
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }
  const isOn = (button) => button.getAttribute("aria-pressed") === "true";

  function includeValue() {
    const parts = includeInput.value.split(/[,\s]+/).filter(Boolean);
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : parts;
  }

  function autosize() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight, window.innerHeight * 0.4) + "px";
  }

  // -- states ----------------------------------------------------------------------------------
  function showLoading() {
    results.setAttribute("aria-busy", "true");
    submitButton.disabled = true;
    stats.textContent = "";
    results.replaceChildren(
      el("div", { class: "state loading", "data-state": "loading" }, el("span", { class: "spinner" }), "Loading…"),
    );
    moreButton.hidden = true;
  }

  function done() {
    results.removeAttribute("aria-busy");
    submitButton.disabled = false;
  }

  function showError(message, title) {
    results.replaceChildren(
      el(
        "div",
        { class: "state error", role: "alert", "data-state": "error" },
        el("span", { class: "title", text: title || "Error" }),
        message,
      ),
    );
  }

  let stateDrawn = false; // set when an answer is shown as the Empty state

  function showEmpty(title, detail) {
    stateDrawn = true;
    results.replaceChildren(
      el("div", { class: "state empty", "data-state": "empty" }, el("span", { class: "title", text: title }), detail || ""),
    );
  }

  function setInlineError(message) {
    inlineError.textContent = message || "";
    inlineError.hidden = !message;
  }

  // -- running a query -----------------------------------------------------------------------
  function readForm() {
    return {
      prompt: input.value,
      tool: toolSelect.value,
      case: isOn(caseButton),
      regex: isOn(regexButton),
      include: includeInput.value.trim(),
    };
  }

  function writeForm(query) {
    input.value = query.prompt || "";
    toolSelect.value = query.tool || "auto";
    setToggle(caseButton, !!query.case);
    setToggle(regexButton, !!query.regex);
    includeInput.value = query.include || "";
    toolChanged();
    autosize();
  }

  function queryUrl(query) {
    const params = new URLSearchParams();
    params.set("q", query.prompt);
    if (query.tool && query.tool !== "auto") params.set("tool", query.tool);
    if (query.case) params.set("case", "1");
    if (query.regex) params.set("regex", "1");
    if (query.include) params.set("include", query.include);
    return "?" + params.toString();
  }

  function queryFromUrl() {
    const params = new URLSearchParams(window.location.search);
    if (!params.get("q")) return null;
    return {
      prompt: params.get("q"),
      tool: params.get("tool") || "auto",
      case: params.get("case") === "1",
      regex: params.get("regex") === "1",
      include: params.get("include") || "",
    };
  }

  async function run(query, { push = true, more = false } = {}) {
    if (!query.prompt.trim()) {
      setInlineError("Type something to search for, or a command such as Read README.md");
      input.focus();
      return;
    }
    if (!more) pages = 1;
    current = query;
    setInlineError("");
    if (push) {
      const url = queryUrl(query);
      if (url !== window.location.search) history.pushState(null, "", url);
    }
    const mine = ++sequence;
    const scroll = window.scrollY;
    if (!more) showLoading();
    else {
      moreButton.disabled = true;
      moreButton.textContent = "Loading…";
    }
    const options = {
      regex: query.regex,
      case_sensitive: query.case,
      context_lines: CONTEXT,
      max_matches: PAGE * pages,
    };
    const include = includeValue();
    if (include !== undefined) options.include = include;
    const started = performance.now();
    let answer;
    try {
      answer = await api("/api/agent", { prompt: query.prompt, tool: query.tool, options });
    } catch (err) {
      if (mine !== sequence) return;
      done();
      showError(err.message);
      stats.textContent = "";
      if (!more) remember(query, err.message, true);
      return;
    } finally {
      moreButton.disabled = false;
      moreButton.textContent = "Show more";
    }
    if (mine !== sequence) return;
    const elapsed = Math.round(performance.now() - started);
    done();
    const summary = render(answer, elapsed);
    if (more) window.scrollTo(0, scroll);
    else remember(query, summary, answer.is_error);
  }

  // -- rendering answers ---------------------------------------------------------------------
  // The tools whose answers have a view of their own; any other shows its text.
  const RENDERERS = new Map([
    ["grep_search", renderHits],
    ["read_file", renderRead],
    ["list_dir", renderList],
    ["glob_search", renderGlob],
  ]);

  function render(answer, elapsed) {
    moreButton.hidden = true;
    const data = answer.data || {};
    if (answer.is_error) {
      const error = data.error || {};
      const message = error.message || answer.text;
      if (error.type === "PatternError") {
        setInlineError(message);
        stats.textContent = "";
        showError(message, "Invalid regular expression");
        return "invalid regex";
      }
      stats.textContent = "";
      showError(message, error.type === "CommandError" ? "Not a command" : "Error");
      return message.split("\n")[0];
    }
    const blocks = [];
    stateDrawn = false;
    if (answer.note) blocks.push(el("p", { class: "note", text: `→ ${answer.tool}: ${answer.note}` }));
    let summary;
    const renderer = RENDERERS.get(answer.tool);
    if (renderer) {
      summary = renderer(data, elapsed, blocks);
    } else {
      stats.textContent = `${data.summary || answer.tool} · ${elapsed} ms`;
      blocks.push(el("div", { class: "text-out", text: answer.text.replace(/^\[tool=[^\]]*\] ?/, "") }));
      if (data.diff) blocks.push(diffView(data.diff));
      summary = data.summary || answer.tool;
    }
    if (!stateDrawn) results.replaceChildren(...blocks);
    return summary;
  }

  function statsLine(parts, elapsed) {
    stats.replaceChildren();
    parts.forEach((part, i) => stats.append(i ? " " : "", part));
    stats.append(` · ${elapsed} ms`);
  }

  function renderHits(data, elapsed, blocks) {
    const matches = data.matches || [];
    if (matches.length === 0) {
      stats.textContent = `0 matches · ${elapsed} ms`;
      const hint = [];
      if (data.ignored) hint.push(`${plural(data.ignored, "ignored file")} not searched.`);
      if (data.binary_files) hint.push(`${plural(data.binary_files, "binary file")} skipped.`);
      showEmpty(`No matches for ${JSON.stringify(data.pattern)} in ${data.path || "."}`, hint.join(" "));
      return "no matches";
    }
    const files = new Map();
    for (const m of matches) {
      if (!files.has(m.file)) files.set(m.file, []);
      files.get(m.file).push(m);
    }
    const more = data.truncated ? "+" : "";
    statsLine(
      [el("b", { text: `${matches.length.toLocaleString()}${more}` }), `match${matches.length === 1 && !more ? "" : "es"} in`,
        el("b", { text: `${files.size.toLocaleString()}${more}` }), `file${files.size === 1 && !more ? "" : "s"}`],
      elapsed,
    );
    for (const [file, hits] of files) blocks.push(fileBlock(file, hits));
    moreButton.hidden = !data.truncated;
    return `${matches.length}${more} matches in ${files.size}${more} files`;
  }

  function fileBlock(file, hits) {
    // One row per line: hit lines (all of a line's hits marked) and context lines, merged.
    const rows = new Map();
    const put = (line, text, kind) => {
      const row = rows.get(line);
      if (!row) rows.set(line, { line, text, hits: [], kind });
      else if (kind === "hit") row.kind = "hit";
      return rows.get(line);
    };
    for (const m of hits) {
      m.before.forEach((text, k) => put(m.line - m.before.length + k, text, "ctx"));
      const row = put(m.line, m.text, "hit");
      row.text = m.text;
      row.hits.push(m);
      m.after.forEach((text, k) => put(m.end_line + 1 + k, text, "ctx"));
    }
    const ordered = [...rows.values()].sort((a, b) => a.line - b.line);
    const lines = el("div", { class: "lines" });
    let previous = null;
    for (const row of ordered) {
      if (previous !== null && row.line > previous + 1) lines.append(el("div", { class: "gap", text: "⋯" }));
      lines.append(row.kind === "hit" ? hitRow(file, row) : contextRow(row));
      previous = row.line;
    }
    const label = plural(hits.length, "match", "matches");
    return el(
      "section",
      { class: "file", "data-file": file },
      el(
        "div",
        { class: "file-head" },
        el("a", { class: "file-path", href: "#", text: file, onclick: (e) => { e.preventDefault(); openFile(file, hits[0].line); } }),
        el("span", { class: "count", text: label }),
      ),
      lines,
    );
  }

  function contextRow(row) {
    return el("div", { class: "line ctx" }, el("span", { class: "ln", text: row.line }), el("span", { class: "code", text: row.text }));
  }

  function highlighted(text, hits) {
    const chars = codePoints(text);
    const spans = hits
      .map((m) => {
        const start = m.column - 1;
        const first = codePoints(m.content.split("\n")[0].replace(/\r$/, "")).length;
        return [start, Math.max(start + first, start)];
      })
      .sort((a, b) => a[0] - b[0]);
    const code = el("span", { class: "code" });
    let at = 0;
    for (const [start, end] of spans) {
      if (start < at) continue;
      code.append(chars.slice(at, start).join(""));
      code.append(el("mark", { text: chars.slice(start, end).join("") || " " }));
      at = end;
    }
    code.append(chars.slice(at).join(""));
    return code;
  }

  function hitRow(file, row) {
    const node = el(
      "div",
      {
        class: "line hit",
        tabindex: "0",
        "data-line": row.line,
        "data-id": row.hits[0].id,
        title: `Open ${file} at line ${row.line}`,
      },
      el("span", { class: "ln", text: row.line }),
      highlighted(row.text, row.hits),
    );
    if (!info.read_only) {
      const actions = el("span", { class: "actions" });
      row.hits.forEach((m, i) => {
        actions.append(
          el("button", {
            type: "button",
            class: "replace",
            "data-id": m.id,
            text: row.hits.length > 1 ? `Replace #${i + 1}` : "Replace",
            title: `Replace this match (${m.id})`,
            onclick: (e) => {
              e.stopPropagation();
              openReplace(node, m);
            },
          }),
        );
      });
      node.append(actions);
    }
    node.addEventListener("click", () => openFile(file, row.line));
    node.addEventListener("keydown", (e) => {
      if (e.target !== node) return;
      if (e.key === "Enter" || e.key === "o") {
        e.preventDefault();
        openFile(file, row.line);
      } else if (e.key === "r" && !info.read_only) {
        e.preventDefault();
        openReplace(node, row.hits[0]);
      }
    });
    return node;
  }

  function renderRead(data, elapsed, blocks) {
    const total = data.total_lines !== undefined && data.total_lines !== null ? ` of ${data.total_lines}` : "";
    statsLine([el("b", { text: data.path }), `lines ${data.start_line}–${data.end_line}${total}`], elapsed);
    blocks.push(
      el(
        "section",
        { class: "file", "data-file": data.path },
        el("div", { class: "file-head" }, el("span", { class: "file-path", text: data.path })),
        numberedLines(data.content, null),
      ),
    );
    if (data.truncated) blocks.push(el("p", { class: "note", text: data.summary }));
    return `${data.path}: lines ${data.start_line}-${data.end_line}`;
  }

  function numberedLines(content, target) {
    const box = el("div", { class: "lines" });
    for (const raw of (content || "").split("\n")) {
      if (raw === "" && !content) continue;
      const found = /^\s*(\d+)\t(.*)$/.exec(raw);
      const line = found ? Number(found[1]) : null;
      const row = el(
        "div",
        { class: "line" + (line === target ? " target" : ""), "data-line": line },
        el("span", { class: "ln", text: line === null ? "" : line }),
        el("span", { class: "code", text: found ? found[2] : raw }),
      );
      box.append(row);
    }
    return box;
  }

  function entryList(items, onPick) {
    const list = el("ul", { class: "entries" });
    for (const item of items) {
      list.append(
        el("li", {}, el("button", { type: "button", class: item.endsWith("/") ? "dir" : "file-entry", text: item, onclick: () => onPick(item) })),
      );
    }
    return list;
  }

  function join(dir, name) {
    if (!dir || dir === ".") return name;
    return dir.replace(/\/+$/, "") + "/" + name;
  }

  function renderList(data, elapsed, blocks) {
    const entries = data.entries || [];
    statsLine([el("b", { text: data.path }), plural(data.total, "entry", "entries")], elapsed);
    if (entries.length === 0) {
      showEmpty(`${data.path} is empty`, data.ignored ? `${plural(data.ignored, "entry", "entries")} hidden by ignore rules.` : "");
      return "empty directory";
    }
    blocks.push(
      entryList(entries, (item) => {
        const path = join(data.path, item);
        if (item.endsWith("/")) {
          const query = { prompt: `List ${quote(path.replace(/\/$/, ""))}`, tool: "auto", case: false, regex: false, include: "" };
          writeForm(query);
          run(query);
        } else openFile(path, 1);
      }),
    );
    if (data.truncated) blocks.push(el("p", { class: "note", text: data.summary }));
    return `${entries.length} entries`;
  }

  function renderGlob(data, elapsed, blocks) {
    const files = (data.files || []).map((f) => f.path);
    statsLine([el("b", { text: files.length.toLocaleString() + (data.truncated ? "+" : "") }), `file${files.length === 1 ? "" : "s"} matching ${data.pattern}`], elapsed);
    if (files.length === 0) {
      showEmpty(`No files match ${data.pattern}`, data.ignored ? `${plural(data.ignored, "ignored file")} not listed.` : "");
      return "no files";
    }
    blocks.push(entryList(files, (path) => openFile(path, 1)));
    return `${files.length} files`;
  }

  function quote(text) {
    return /[\s'"]/.test(text) ? `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'` : text;
  }

  function diffView(diff) {
    const box = el("div", { class: "diff" });
    for (const line of diff.replace(/\n$/, "").split("\n")) {
      let kind = "";
      if (line.startsWith("@@")) kind = "hunk";
      else if (line.startsWith("+") && !line.startsWith("+++")) kind = "add";
      else if (line.startsWith("-") && !line.startsWith("---")) kind = "del";
      box.append(el("div", { class: kind, text: line || " " }));
    }
    return box;
  }

  // -- the file viewer -------------------------------------------------------------------------
  let viewerReturn = null;

  async function openFile(path, line) {
    viewerReturn = document.activeElement;
    viewer.hidden = false;
    $("viewer-path").textContent = path;
    $("viewer-info").textContent = `line ${line} · loading…`;
    viewerBody.replaceChildren(el("div", { class: "state loading", "data-state": "loading" }, el("span", { class: "spinner" }), "Loading…"));
    const offset = Math.max(1, line - 300);
    let answer;
    try {
      answer = await api("/api/tools/read_file", { path, offset, limit: 600 });
    } catch (err) {
      answer = { is_error: true, text: err.message };
    }
    if ($("viewer-path").textContent !== path) return; // another file was opened meanwhile
    if (answer.is_error) {
      $("viewer-info").textContent = "";
      viewerBody.replaceChildren(el("div", { class: "state error", role: "alert", "data-state": "error", text: answer.text }));
      return;
    }
    const data = answer.data;
    $("viewer-info").textContent = `line ${line} · lines ${data.start_line}–${data.end_line} of ${data.total_lines ?? "?"}`;
    viewerBody.replaceChildren(numberedLines(data.content, line));
    const target = viewerBody.querySelector(".line.target");
    if (target) target.scrollIntoView({ block: "center" });
    viewerBody.focus({ preventScroll: true });
  }

  function closeViewer() {
    viewer.hidden = true;
    if (viewerReturn && document.contains(viewerReturn)) viewerReturn.focus();
  }

  // -- Replace on a hit: preview (dry run), then Apply --------------------------------------------
  function openReplace(row, match) {
    const next = row.nextElementSibling;
    if (next && next.classList.contains("replace-box")) next.remove();
    const field = el("textarea", { rows: Math.min(8, match.content.split("\n").length + 1), spellcheck: "false", "aria-label": "Replacement text" });
    field.value = match.content;
    const out = el("div", { class: "box-out" });
    const previewButton = el("button", { type: "button", class: "primary preview", text: "Preview" });
    const cancelButton = el("button", { type: "button", class: "cancel", text: "Cancel" });
    const box = el(
      "div",
      { class: "replace-box", "data-id": match.id },
      el("label", {}, "Replace ", el("code", { text: match.content }), ` (line ${match.line}) with:`),
      field,
      el("div", { class: "buttons" }, previewButton, cancelButton),
      out,
    );
    const close = () => {
      box.remove();
      row.focus();
    };
    cancelButton.addEventListener("click", close);
    box.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        close();
      } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        const apply = box.querySelector("button.apply");
        (apply || previewButton).click();
      }
    });
    previewButton.addEventListener("click", async () => {
      out.replaceChildren(el("div", { class: "msg", text: "Computing the diff…" }));
      let answer;
      try {
        answer = await api("/api/preview", { search_result_id: match.id, new_string: field.value });
      } catch (err) {
        answer = { is_error: true, text: err.message };
      }
      if (answer.is_error) {
        out.replaceChildren(el("div", { class: "msg error", role: "alert", text: answer.text }));
        return;
      }
      const applyButton = el("button", { type: "button", class: "primary apply", text: "Apply" });
      applyButton.addEventListener("click", () => apply(row, match, field.value, out, answer.data));
      out.replaceChildren(
        el("div", { class: "msg", text: answer.data.summary }),
        diffView(answer.data.diff),
        el("div", { class: "buttons" }, applyButton),
      );
      applyButton.focus();
    });
    row.after(box);
    field.focus();
    field.select();
  }

  async function apply(row, match, newText, out, previewData) {
    const button = out.querySelector("button.apply");
    if (button) button.disabled = true;
    let answer;
    try {
      answer = await api("/api/tools/edit", { search_result_id: match.id, new_string: newText });
    } catch (err) {
      const hint = err.status === 401 ? " Open the URL that codesift serve printed (with ?token=) to allow edits." : "";
      out.append(el("div", { class: "msg error", role: "alert", text: err.message + hint }));
      if (button) button.disabled = false;
      return;
    }
    if (answer.is_error) {
      out.append(el("div", { class: "msg error", role: "alert", text: answer.text }));
      if (button) button.disabled = false;
      return;
    }
    const data = answer.data;
    const lines = (previewData && previewData.new_lines) || [];
    const box = out.parentElement;
    box.querySelector(".buttons").remove();
    box.querySelector("textarea").readOnly = true;
    out.replaceChildren(el("div", { class: "msg ok", role: "status", text: "✓ " + data.summary }), diffView(data.diff));
    const first = lines.find((l) => l.line === data.first_line) || lines[0];
    if (first) {
      row.querySelector(".code").replaceWith(el("span", { class: "code", text: first.text }));
      row.classList.add("edited");
      const actions = row.querySelector(".actions");
      if (actions) actions.remove();
    }
  }

  // -- history (this tab only) ---------------------------------------------------------------------
  function loadHistory() {
    try {
      const items = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || "[]");
      return Array.isArray(items) ? items : [];
    } catch (err) {
      return [];
    }
  }

  function remember(query, summary, isError) {
    const items = loadHistory().filter(
      (h) => !(h.prompt === query.prompt && h.tool === query.tool && h.case === query.case && h.regex === query.regex && h.include === query.include),
    );
    items.unshift({ ...query, summary: String(summary || ""), error: !!isError });
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(items.slice(0, HISTORY_MAX)));
    drawHistory();
  }

  function drawHistory() {
    const items = loadHistory();
    historyEmpty.hidden = items.length > 0;
    historyList.replaceChildren(
      ...items.map((item) => {
        const flags = [item.tool !== "auto" ? item.tool : "", item.regex ? ".*" : "", item.case ? "Aa" : "", item.include ? item.include : ""]
          .filter(Boolean)
          .join(" ");
        return el(
          "li",
          { class: item.error ? "h-error" : "" },
          el(
            "button",
            {
              type: "button",
              title: "Run again",
              onclick: () => {
                writeForm(item);
                run(item);
              },
            },
            el("span", { class: "h-prompt", text: item.prompt }),
            el("span", { class: "h-summary", text: [flags, item.summary].filter(Boolean).join(" · ") }),
          ),
        );
      }),
    );
  }

  // -- keyboard ---------------------------------------------------------------------------------
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  input.addEventListener("input", () => {
    autosize();
    setInlineError("");
  });
  includeInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  function typing(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable);
  }

  function moveHit(step) {
    const hits = [...results.querySelectorAll(".line.hit")];
    if (hits.length === 0) return;
    const at = hits.indexOf(document.activeElement);
    const next = hits[Math.max(0, Math.min(hits.length - 1, at < 0 ? 0 : at + step))];
    next.focus();
    next.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", (e) => {
    if (e.altKey && (e.key === "c" || e.key === "C")) {
      e.preventDefault();
      setToggle(caseButton, !isOn(caseButton));
    } else if (e.altKey && (e.key === "r" || e.key === "R")) {
      e.preventDefault();
      setToggle(regexButton, !isOn(regexButton));
    } else if (e.key === "Escape") {
      if (!viewer.hidden) closeViewer();
      else setInlineError("");
    } else if (!typing(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      if (e.key === "/") {
        e.preventDefault();
        input.focus();
        input.select();
      } else if (e.key === "j") moveHit(1);
      else if (e.key === "k") moveHit(-1);
    }
  });

  // -- the tool selector: the button and the hint follow the chosen tool ---------------------------
  const TOOL_LOOK = {
    auto: ["Search", input.placeholder],
    search: ["Search", "Text to find (toggle .* for a regex)"],
    read: ["Read", "src/app.py  or  src/app.py:10-40"],
    list: ["List", "src  or  src/**/*.ts"],
    glob: ["List", "**/*.ts  or  src/*.java in src"],
    replace: ["Replace", "'old text' with 'new text' in FILE"],
  };
  function toolChanged() {
    const [label, hint] = TOOL_LOOK[toolSelect.value] || TOOL_LOOK.auto;
    submitButton.textContent = label;
    input.placeholder = hint;
  }
  toolSelect.addEventListener("change", toolChanged);

  // -- wiring ------------------------------------------------------------------------------------
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    run(readForm());
  });
  caseButton.addEventListener("click", () => setToggle(caseButton, !isOn(caseButton)));
  regexButton.addEventListener("click", () => setToggle(regexButton, !isOn(regexButton)));
  moreButton.addEventListener("click", () => {
    if (!current) return;
    pages += 1;
    run(current, { push: false, more: true });
  });
  $("viewer-close").addEventListener("click", closeViewer);
  $("clear-history").addEventListener("click", () => {
    sessionStorage.removeItem(HISTORY_KEY);
    drawHistory();
  });
  $("toggle-history").addEventListener("click", (e) => {
    const layout = document.querySelector(".layout");
    const hidden = layout.classList.toggle("no-history");
    e.currentTarget.setAttribute("aria-expanded", hidden ? "false" : "true");
  });
  window.addEventListener("popstate", () => {
    const query = queryFromUrl();
    if (query) {
      writeForm(query);
      run(query, { push: false });
    }
  });

  async function start() {
    drawHistory();
    try {
      info = await api("/api/info");
      $("root").textContent = info.root;
      const mode = $("mode");
      if (info.read_only) mode.textContent = "read-only";
      else if (token()) {
        mode.textContent = "edits enabled";
        mode.classList.add("ok");
      } else {
        mode.textContent = "view only: open the URL with ?token= to edit";
      }
    } catch (err) {
      showError(err.message, "Cannot reach the server");
    }
    const query = queryFromUrl();
    if (query) {
      writeForm(query);
      run(query, { push: false });
    } else {
      showEmpty(
        "Search the workspace",
        "Type text to find it, or a command: Read PATH[:START-END] · List DIR or GLOB · " +
          "Search ['regex'] ['case-sensitive'] 'PATTERN' in PATH · Replace 'OLD' with 'NEW' in FILE",
      );
      results.firstChild.dataset.state = "start";
    }
  }

  start();
})();

"""Every call's answer, as the structured data (`to_dict()`) and the one-line `summary` an LLM
reads, and what a search keeps of its hits:

- `matches`: glob's and grep's results (`GlobResult`, `GrepResult`, `BudgetSpent`);
- `files`: the results of reading, listing, writing and editing files;
- `ranked`: the answer of `Workspace.search` (a question in words, keyword-ranked);
- `streams`: the streamed answers of `grep_iter` and `glob_iter`;
- `skipped`, `skip_hints`: what a search passed over, and the one-line hint that says so;
- `cache`: the search-result cache, hits kept by `searchResultId` for the edits that follow.

Each is imported from its module (a piped grep streams through `streams` without defining any
dataclass); the package itself imports nothing.
"""

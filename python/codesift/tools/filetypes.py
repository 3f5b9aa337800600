"""ripgrep's common file types (`rg --type NAME`) as globs, for the agents whose grep takes a
`type` (Claude Code). The names and globs follow ripgrep's default type list
(`rg --type-list`) for the languages agents ask for."""

from __future__ import annotations

from ..errors import InvalidArgumentError

FILE_TYPES: dict[str, tuple[str, ...]] = {
    "c": ("*.[chH]", "*.[chH].in", "*.cats"),
    "cpp": ("*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl", "*.[ChH].in", "*.cc.in"),
    "cs": ("*.cs",),
    "css": ("*.css", "*.scss"),
    "csv": ("*.csv",),
    "dart": ("*.dart",),
    "docker": ("*Dockerfile*",),
    "elixir": ("*.ex", "*.eex", "*.exs", "*.heex", "*.leex", "*.livemd"),
    "go": ("*.go",),
    "h": ("*.h", "*.hh", "*.hpp"),
    "html": ("*.htm", "*.html", "*.ejs"),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "js": ("*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"),
    "json": ("*.json", "composer.lock", "*.sarif"),
    "kotlin": ("*.kt", "*.kts"),
    "lua": ("*.lua",),
    "make": ("[Gg][Nn][Uu]makefile", "[Mm]akefile", "*.mk", "*.mak"),
    "markdown": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"),
    "md": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"),
    "php": ("*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"),
    "py": ("*.py", "*.pyi"),
    "python": ("*.py", "*.pyi"),
    "rb": ("config.ru", "Gemfile", ".irbrc", "Rakefile", "*.gemspec", "*.rb", "*.rbw"),
    "ruby": ("config.ru", "Gemfile", ".irbrc", "Rakefile", "*.gemspec", "*.rb", "*.rbw"),
    "rust": ("*.rs",),
    "scala": ("*.scala", "*.sbt"),
    "sh": ("*.bash", "*.bashrc", ".bash_profile", ".profile", "*.sh", "*.zsh", ".zshrc"),
    "sql": ("*.sql", "*.psql"),
    "swift": ("*.swift",),
    "toml": ("*.toml", "Cargo.lock"),
    "ts": ("*.ts", "*.tsx", "*.cts", "*.mts"),
    "typescript": ("*.ts", "*.tsx", "*.cts", "*.mts"),
    "txt": ("*.txt",),
    "vue": ("*.vue",),
    "xml": ("*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt", "*.svg"),
    "yaml": ("*.yaml", "*.yml"),
    "zig": ("*.zig",),
}


def type_globs(name: str) -> list[str]:
    """The globs of the ripgrep file type `name`."""
    globs = FILE_TYPES.get(name.strip().lower())
    if globs is None:
        raise InvalidArgumentError(
            f"unrecognized file type: {name}; use one of {', '.join(sorted(FILE_TYPES))}, or "
            'a glob such as "*.ext"'
        )
    return list(globs)

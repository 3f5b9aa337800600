//! What a ranked hit carries (`Hit::ranking`): its role, the reasons for its score and the
//! score. The ranking itself is `crate::rank`; the types live here, beside the hit, so that a
//! hit does not depend on the ranker.

/// The kind of file a path names, for ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// Written by the project for the project: no penalty.
    Source,
    Test,
    Vendored,
    Generated,
    /// Documentation, manifests and data (`*.md`, `*.json`, `LICENSE`, ...): prose about
    /// the code, below the code itself.
    Prose,
}

impl FileRole {
    /// What a hit's score is multiplied by in a file of this role: low enough that a
    /// reference in a source file outranks one in a test, high enough that a definition in
    /// a test still outranks every reference.
    pub fn weight(self) -> f64 {
        match self {
            FileRole::Source => 1.0,
            FileRole::Test | FileRole::Prose => 0.5,
            FileRole::Vendored => 0.4,
            FileRole::Generated => 0.3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FileRole::Source => "source file",
            FileRole::Test => "test file",
            FileRole::Vendored => "vendored file",
            FileRole::Generated => "generated file",
            FileRole::Prose => "documentation or data file",
        }
    }
}

/// How a match sits among the words of its line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum WordFit {
    /// Inside a longer word on both sides (`alloc` in `kmalloc_node`).
    #[default]
    Substring,
    /// A word boundary on one side (`kmalloc` in `kmalloc_node`).
    Partial,
    /// Word boundaries on both sides.
    Whole,
}

/// What a ranked search reads of a hit's line, worked out by the search as it finds the hit
/// (`WindowCapture::shape`), while the line is at hand: the ranking takes it from here instead
/// of reading the hit's line again (by then out of the processor's caches).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HitShape {
    /// The hit's `byte_offset`: a shape stands for a hit only when they agree.
    pub byte_offset: u64,
    /// The line's length without a carriage return at its end.
    pub line_len: u32,
    /// Bytes of the line before the match.
    pub column_bytes: u32,
    /// Where the identifier the match names is in the line, when it names one.
    pub identifier: Option<(u32, u32)>,
    pub fit: WordFit,
    /// The line may define the identifier (`rank::words::may_define`).
    pub may_define: bool,
    /// The identifier opens its line.
    pub opens_line: bool,
    /// The kind of definition the hit's window gives its identifier when that window, cut
    /// from the bytes the search kept, is a plain C head of it (`rank::recognise_heads`):
    /// worked out as the file's search ended, its bytes still in the cache. `None` when it
    /// is not one, or was not looked at (the ranking then reads the window itself).
    pub head: Option<&'static str>,
}

/// What a hit is to the identifier it matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The hit is the name of a definition (a function, class, macro, ...) of it.
    Definition,
    /// Any other use of the text.
    Reference,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Definition => "definition",
            Role::Reference => "reference",
        }
    }
}

/// Why a ranked hit is where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    pub role: Role,
    /// The kind of definition (`"function"`, `"class"`, `"macro"`, ...), for a definition.
    pub kind: Option<&'static str>,
    pub score: f64,
    pub fit: WordFit,
    pub file_role: FileRole,
    /// 2: the file's stem is the identifier; 1: it contains it.
    pub name_match: u8,
    /// The definition enclosing the hit (its name's line and its head), given with a token
    /// budget (`budget::fit`).
    pub enclosing: Option<Box<(u64, String)>>,
}

impl Ranking {
    /// The reasons, in words: `definition (function)`, `whole word, file name, test file`.
    pub fn why(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        match (self.role, self.kind) {
            (Role::Definition, Some(kind)) => parts.push(format!("definition ({kind})")),
            (role, _) => parts.push(role.name().to_string()),
        }
        parts.push(
            match self.fit {
                WordFit::Whole => "whole word",
                WordFit::Partial => "part of a word",
                WordFit::Substring => "inside a word",
            }
            .to_string(),
        );
        match self.name_match {
            2 => parts.push("file named after it".into()),
            1 => parts.push("file name contains it".into()),
            _ => {}
        }
        if self.file_role != FileRole::Source {
            parts.push(self.file_role.name().into());
        }
        parts.join(", ")
    }
}

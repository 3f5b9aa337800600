//! Query planning (placeholder until the planner lands): every regex needs every unit.

/// A condition on the byte trigrams a unit of text must contain for the regex to possibly
/// match in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    All,
    Nothing,
    Trigram(u32),
    And(Vec<Query>),
    Or(Vec<Query>),
}

/// Packs 3 bytes into a u32: (a << 16) | (b << 8) | c.
pub fn trigram(bytes: [u8; 3]) -> u32 {
    (u32::from(bytes[0]) << 16) | (u32::from(bytes[1]) << 8) | u32::from(bytes[2])
}

/// Plans `regex` with the scan's flags.
pub fn plan(_regex: &str, _case_insensitive: bool) -> Query {
    Query::All
}

//! The Python bindings (`codesift._core`): they only convert values, map errors and release
//! the GIL around the engine's work; no engine logic lives here.

pub mod cancel;
pub mod daemon;
pub mod engine;
pub mod errors;
pub mod glob;
pub mod interrupt;
pub mod print;
pub mod request;
pub mod results;
pub mod stream;

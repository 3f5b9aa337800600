//! The `codesift-rg` executable: ripgrep's command line answered by `_core::rg`.

fn main() {
    std::process::exit(_core::rg::main());
}

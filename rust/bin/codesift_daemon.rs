//! The `codesift-daemon` executable: this user's index daemon served by `_core::daemon`.

fn main() {
    std::process::exit(_core::daemon::cli::main());
}

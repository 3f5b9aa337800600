//! Ships `codesift-rg` and `codesift-daemon` in the package: maturin builds only the Python
//! module (it cannot ship a [[bin]] beside a pyo3 module), so when it builds (it sets
//! PYO3_BUILD_EXTENSION_MODULE) this script builds the executables too, without the Python
//! feature, into python/codesift/bin/, which maturin packs with the package's files (an
//! editable install uses them in place).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PYO3_BUILD_EXTENSION_MODULE");
    println!("cargo:rerun-if-changed=rust");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("PYO3_BUILD_EXTENSION_MODULE").is_none()
        || std::env::var_os("CODESIFT_RG_NESTED_BUILD").is_some()
    {
        return;
    }
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let target = root.join("target").join("codesift-rg-build");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "release".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args([
            "build",
            "--bin",
            "codesift-rg",
            "--bin",
            "codesift-daemon",
            "--no-default-features",
            "--locked",
        ])
        .arg("--target-dir")
        .arg(&target)
        .env("CODESIFT_RG_NESTED_BUILD", "1")
        // PCRE2 built from the source `pcre2-sys` vendors and linked in statically, even where
        // a system libpcre2 is found: the executables ship in a wheel.
        .env("PCRE2_SYS_STATIC", "1")
        .env_remove("PYO3_BUILD_EXTENSION_MODULE")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    if profile == "release" {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("running cargo to build codesift-rg");
    assert!(
        status.success(),
        "building the executables failed: {status}"
    );
    let built = target.join(if profile == "release" {
        "release"
    } else {
        "debug"
    });
    let dest = root.join("python").join("codesift").join("bin");
    std::fs::create_dir_all(&dest).expect("creating python/codesift/bin");
    for name in ["codesift-rg", "codesift-daemon"] {
        // Copied under a temporary name and renamed: a daemon running the old executable
        // keeps its file, and no one ever starts a half-copied one.
        let temporary = dest.join(format!(".{name}.new"));
        std::fs::copy(built.join(name), &temporary).expect("copying an executable");
        std::fs::rename(&temporary, dest.join(name)).expect("installing an executable");
    }
}

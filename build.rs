//! Ships `codesift-rg` in the package: maturin builds only the Python module (it cannot ship
//! a [[bin]] beside a pyo3 module), so when it builds (it sets PYO3_BUILD_EXTENSION_MODULE)
//! this script builds the executable too, without the Python feature, into
//! python/codesift/bin/, which maturin packs with the package's files (an editable install
//! uses it in place).

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
            "--no-default-features",
            "--locked",
        ])
        .arg("--target-dir")
        .arg(&target)
        .env("CODESIFT_RG_NESTED_BUILD", "1")
        .env_remove("PYO3_BUILD_EXTENSION_MODULE")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    if profile == "release" {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("running cargo to build codesift-rg");
    assert!(status.success(), "building codesift-rg failed: {status}");
    let built = target
        .join(if profile == "release" {
            "release"
        } else {
            "debug"
        })
        .join("codesift-rg");
    let dest = root.join("python").join("codesift").join("bin");
    std::fs::create_dir_all(&dest).expect("creating python/codesift/bin");
    std::fs::copy(&built, dest.join("codesift-rg")).expect("copying codesift-rg");
}

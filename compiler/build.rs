//! With the `train` feature, lets `wsitec` and its tests find libtorch at run
//! time without `LD_LIBRARY_PATH`: an rpath to `$LIBTORCH/lib`.
//!
//! `WSITE_TORCH_CUDA=DIR` builds for a GPU machine instead: it links
//! `libtorch_cuda` (which tch never names, so CUDA would silently be missing)
//! and sets the rpath to `DIR`, that machine's torch `lib/`. The CUDA
//! libraries need not exist here; they are resolved there.

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    println!("cargo:rerun-if-env-changed=WSITE_TORCH_CUDA");
    if std::env::var_os("CARGO_FEATURE_TRAIN").is_none() {
        return;
    }
    if let Ok(dir) = std::env::var("WSITE_TORCH_CUDA") {
        println!("cargo:rustc-link-arg-bins=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
        println!("cargo:rustc-link-arg-bins=-Wl,--allow-shlib-undefined");
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{dir}");
    } else if let Ok(dir) = std::env::var("LIBTORCH") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}/lib");
    }
}

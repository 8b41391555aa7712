//! With the `train` feature, lets `wsitec` and its tests find libtorch at run time
//! without `LD_LIBRARY_PATH`: an rpath to `$LIBTORCH/lib`.

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if std::env::var_os("CARGO_FEATURE_TRAIN").is_some() {
        if let Ok(dir) = std::env::var("LIBTORCH") {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}/lib");
        }
    }
}

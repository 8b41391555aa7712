//! How long the front end takes on each example site: parsing alone, and the
//! whole static check (parse, resolve, types, effects, lints).
//!
//! `cargo bench -p wsitec --bench check`

#![allow(clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use wsitec::diagnostics::Diagnostics;
use wsitec::syntax::ast::FileId;

fn examples() -> Vec<(String, String)> {
    wsite_tests::examples()
        .iter()
        .filter_map(|p| {
            let name = p.file_stem()?.to_str()?.to_string();
            Some((name, std::fs::read_to_string(p).ok()?))
        })
        .collect()
}

fn bench_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("front_end");
    for (name, text) in examples() {
        group.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| {
                let mut diags = Diagnostics::default();
                let mut next = 0;
                black_box(wsitec::syntax::parse_file(
                    FileId(0),
                    black_box(&text),
                    &mut next,
                    &mut diags,
                ))
            })
        });
        group.bench_function(format!("check/{name}"), |b| {
            b.iter(|| {
                black_box(wsitec::compile_str(&name, black_box(&text)))
                    .diagnostics
                    .len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_check);
criterion_main!(benches);

//! `wsitec gen --domain D --seed S [--count N] -o DIR`: writes generated sites
//! (see [`crate::gen`]) as `.wsite` files, one per site, and says what each
//! binds.

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct GenArgs {
    /// ecommerce, social, banking, education, healthcare or government.
    #[arg(long)]
    domain: String,
    /// The same seed writes the same sites.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many sites.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// The directory to write into (created if missing).
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
}

pub fn run(args: GenArgs) -> ExitCode {
    let sites = match wsitec::gen::generate(&args.domain, args.seed, args.count) {
        Ok(sites) => sites,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("error: cannot create {}: {e}", args.out.display());
        return ExitCode::from(1);
    }
    for site in &sites {
        let path = args.out.join(&site.file_name);
        if let Err(e) = std::fs::write(&path, &site.text) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("{}  {}", path.display(), site.modules.join(", "));
    }
    ExitCode::SUCCESS
}

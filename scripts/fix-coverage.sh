#!/usr/bin/env bash
# How much of a corpus `wsitec fix` repairs: runs `wsitec fix --format json`
# (a dry run: nothing is written) on every `.wsite` file directly in DIR and
# prints, per diagnostic code and in all, how many defects the first check
# reported, how many fixes were applied, and how many defects the check of
# the fixed text reports (a fix may bring new ones: a page it declares can be
# a dead end, S103).
#
#   scripts/fix-coverage.sh DIR [WSITEC] [-- extra `wsitec fix` flags]
#
# The raw corpus of docs/generator.md:
#   wsitec gen --domain ecommerce --count 60 --raw --seed 5 -o /tmp/raw
#   scripts/fix-coverage.sh /tmp/raw target/release/wsitec -- --no-prove
set -euo pipefail
dir=${1:?usage: scripts/fix-coverage.sh DIR [WSITEC] [-- FLAGS]}
shift
wsitec=target/release/wsitec
if [[ $# -gt 0 && $1 != "--" ]]; then wsitec=$1; shift; fi
[[ ${1:-} == "--" ]] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in "$dir"/*.wsite; do
  "$wsitec" fix --format json "$@" "$f" >>"$out" 2>/dev/null || true
done
jq -rs '
  def count(xs): reduce xs[] as $c ({}; .[$c] += 1);
  (map(.before_codes) | add // []) as $before
  | (map(.left_codes) | add // []) as $left
  | (map(.offered) | add // 0) as $offered
  | (map(.applied | length) | add // 0) as $applied
  | count($before) as $b | count($left) as $l
  | count(map(.applied[].code)) as $a
  | "code   before  fixes applied   left  removed",
    (($b + $l) | keys[] as $k
      | "\($k)   \(($b[$k] // 0) | tostring | " " * (6 - length) + .)  \(($a[$k] // 0) | tostring | " " * (13 - length) + .)  \(($l[$k] // 0) | tostring | " " * (5 - length) + .)  \((($b[$k] // 0) - ($l[$k] // 0)) | tostring | " " * (7 - length) + .)"),
    (($b + $l) | keys | map(($b[.] // 0) - ($l[.] // 0)) | [(map(select(. > 0)) | add // 0), (map(select(. < 0) | -.) | add // 0)]) as [$gone, $new]
    | "\(length) programs: \($before | length) defects, \($offered) with a fix (\(if ($before|length) > 0 then ($offered * 1000 / ($before|length) | round / 10) else 0 end)%), \($applied) fixes applied; \($left | length) defects left: \($gone) gone (\(if ($before|length) > 0 then ($gone * 1000 / ($before|length) | round / 10) else 0 end)% of the defects), \($new) new"
' "$out"

// Unit tests for brace folding (out/folding.js, compiled from src/folding.ts).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { foldingRanges } = require('../../out/folding.js');

const lines = (...ls) => ls.join('\n');

test('a multi-line block folds up to the line before its closing brace', () => {
  const text = lines(
    'page Home {', //            0
    '  heading "Home"', //       1
    '  link "Cart" -> Cart', //  2
    '}', //                      3
  );
  assert.deepEqual(foldingRanges(text), [{ start: 0, end: 2 }]);
});

test('nested blocks, brackets and else branches each fold', () => {
  const text = lines(
    'page P {', //                         0
    '  section "S" {', //                  1
    '    if x {', //                       2
    '      text "a"', //                   3
    '    } else {', //                     4
    '      text "b"', //                   5
    '    }', //                            6
    '  }', //                              7
    '}', //                                8
    'seed T [', //                         9
    '  { name: "a" },', //                 10
    ']', //                                11
  );
  assert.deepEqual(foldingRanges(text), [
    { start: 0, end: 7 },
    { start: 1, end: 6 },
    { start: 2, end: 3 },
    { start: 4, end: 5 },
    { start: 9, end: 10 },
  ]);
});

test('braces inside strings, interpolations and comments do not count', () => {
  const text = lines(
    'page P {', //                                  0
    '  text "\\{ not a block"  // nor this {', //   1
    '  text "{count(T)} items \\{ \\" {f("}")}"', // 2
    '}', //                                         3
  );
  assert.deepEqual(foldingRanges(text), [{ start: 0, end: 2 }]);
});

test('an unterminated string ends at the end of its line', () => {
  const text = lines(
    'page P {', //        0
    '  text "open ( [', // 1
    '  text "x"', //      2
    '}', //               3
  );
  assert.deepEqual(foldingRanges(text), [{ start: 0, end: 2 }]);
});

test('a closing brace after code on its line stays inside the fold', () => {
  const text = lines('marker m writes T {', '  set a.b = 1 }');
  assert.deepEqual(foldingRanges(text), [{ start: 0, end: 1 }]);
});

test('comment runs and regions fold', () => {
  const text = lines(
    '/// Doc line one', //   0
    '/// Doc line two', //   1
    'site S { title "S" }', // 2
    '// region schema', //   3
    'enum E { a }', //       4
    '// endregion', //       5
    '// a single comment', // 6
  );
  assert.deepEqual(foldingRanges(text), [
    { start: 0, end: 1, kind: 'comment' },
    { start: 3, end: 5, kind: 'region' },
  ]);
});

test('one-line blocks and unbalanced brackets produce no folds', () => {
  assert.deepEqual(foldingRanges('enum E { a, b }\n}\n]'), []);
  assert.deepEqual(foldingRanges('page P {\n  text "x"\n'), []);
});

test('an interpolation may continue on the next line, as in the grammar', () => {
  const text = lines(
    'page P {', //                   0
    '  text "{count(', //            1
    '    T)} rows {"', //            2
    '  link "x" -> P', //            3
    '}', //                          4
  );
  // `{"` on line 2 is a new interpolation holding the string `"`, cut off by the
  // line's end; the interpolation itself goes on, so the page's `}` on line 4
  // closes it rather than the page.
  assert.deepEqual(foldingRanges(text), []);
});

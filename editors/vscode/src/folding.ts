// Folding for .wsite files: every `{ }`, `[ ]` and `( )` that spans lines, runs of
// two or more comment lines, and `// region` ... `// endregion` markers. VS Code's
// language configuration can only fold by indentation or markers, so braces need
// this small provider. Strings and comments are skipped, so a brace inside them
// never counts; brackets inside a string's `{expr}` interpolation fold nothing.
// Nothing here imports `vscode`; the tests in tests/unit/ run it under plain Node.

export type FoldKind = 'region' | 'comment';

export interface Fold {
  /** Zero-based line of the opening bracket or the first comment line. */
  start: number;
  /** Zero-based last line to fold away (the closing bracket's line stays visible). */
  end: number;
  kind?: FoldKind;
}

const OPEN: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
const CLOSE = new Set(['}', ']', ')']);

interface Open {
  char: string;
  line: number;
}

const REGION_START = /^\s*\/\/\s*#?region\b/;
const REGION_END = /^\s*\/\/\s*#?endregion\b/;

export function foldingRanges(text: string): Fold[] {
  const lines = text.split(/\r\n|\r|\n/);
  const folds: Fold[] = [];
  const brackets: Open[] = [];
  const regions: number[] = [];
  let commentRunStart = -1;
  let commentRunEnd = -1;

  const closeCommentRun = (): void => {
    if (commentRunStart >= 0 && commentRunEnd > commentRunStart) {
      folds.push({ start: commentRunStart, end: commentRunEnd, kind: 'comment' });
    }
    commentRunStart = -1;
    commentRunEnd = -1;
  };

  const modes: Mode[] = [];

  for (let lineNo = 0; lineNo < lines.length; lineNo++) {
    const line = lines[lineNo];
    if (modes.length > 0) {
      // Inside an interpolation that started on an earlier line.
      scanCode(line, lineNo, brackets, folds, modes);
      continue;
    }

    if (REGION_START.test(line)) {
      closeCommentRun();
      regions.push(lineNo);
      continue;
    }
    if (REGION_END.test(line)) {
      closeCommentRun();
      const start = regions.pop();
      if (start !== undefined && lineNo > start) {
        folds.push({ start, end: lineNo, kind: 'region' });
      }
      continue;
    }
    if (/^\s*\/\//.test(line)) {
      if (commentRunStart < 0) {
        commentRunStart = lineNo;
      }
      commentRunEnd = lineNo;
      continue;
    }
    closeCommentRun();
    scanCode(line, lineNo, brackets, folds, modes);
  }
  closeCommentRun();
  // One fold per start line (the widest): VS Code ignores the others anyway.
  folds.sort((a, b) => a.start - b.start || b.end - a.end);
  return folds.filter((f, i) => i === 0 || folds[i - 1].start !== f.start);
}

// Where the scanner is: in a string, or in an `{expr}` interpolation of one (with
// the number of brackets opened inside it). An empty stack is plain code.
type Mode = { kind: 'string' } | { kind: 'interp'; depth: number };

// Scans one line. As in grammar/wsite.pest, a string ends at the end of its line
// (unterminated), but an interpolation may go on over several lines.
function scanCode(line: string, lineNo: number, brackets: Open[], folds: Fold[], modes: Mode[]): void {
  scanLine(line, lineNo, brackets, folds, modes);
  while (modes.length > 0 && modes[modes.length - 1].kind === 'string') {
    modes.pop();
  }
}

function scanLine(line: string, lineNo: number, brackets: Open[], folds: Fold[], modes: Mode[]): void {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    const mode = modes[modes.length - 1];
    if (mode?.kind === 'string') {
      if (c === '\\') {
        i++;
      } else if (c === '"') {
        modes.pop();
      } else if (c === '{') {
        modes.push({ kind: 'interp', depth: 0 });
      }
      continue;
    }
    if (c === '/' && line[i + 1] === '/') {
      return; // a comment runs to the end of the line
    }
    if (c === '"') {
      modes.push({ kind: 'string' });
      continue;
    }
    if (mode?.kind === 'interp') {
      if (c === '}' && mode.depth === 0) {
        modes.pop();
      } else if (c in OPEN) {
        mode.depth++;
      } else if (CLOSE.has(c)) {
        mode.depth = Math.max(0, mode.depth - 1);
      }
      continue;
    }
    if (c in OPEN) {
      brackets.push({ char: c, line: lineNo });
    } else if (CLOSE.has(c)) {
      // Pop to the matching opener; unmatched closers are ignored.
      for (let k = brackets.length - 1; k >= 0; k--) {
        if (OPEN[brackets[k].char] === c) {
          const open = brackets[k];
          brackets.length = k;
          // Keep the closing line visible when the closer starts it.
          const closerStartsLine = line.slice(0, i).trim() === '';
          const end = closerStartsLine ? lineNo - 1 : lineNo;
          if (end > open.line) {
            folds.push({ start: open.line, end });
          }
          break;
        }
      }
    }
  }
}

/**
 * The records of a CSV file, each with the line it starts on, read strictly as
 * UTF-8. Both are here because csv-parse alone gets them wrong for an import:
 * its `info.lines` counts the CR and the LF of a quoted CRLF as two lines (so
 * every row after such a field would be reported a line too far down), and a
 * stream decoded as UTF-8 turns bytes of another encoding (a Latin-1 `é`)
 * into U+FFFD without a word, which would then be stored.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';

export class EncodingError extends Error {}

interface SourceRecord {
  readonly record: string[];
  /** the line the record starts on; line 1 is the first line of the file */
  readonly line: number;
  /** bytes of the file read so far, for progress */
  readonly bytes: number;
}

/**
 * Lines are counted here, not taken from csv-parse: a line ends at LF (CRLF
 * holds one LF too), as `grep -n`, `sed` and editors count them. A record
 * starts on the line after the previous one ended, past the empty lines
 * csv-parse skipped (it counts them), and ends as many lines further down as
 * its quoted fields hold LFs.
 */
export async function* readCsv(file: string): AsyncGenerator<SourceRecord> {
  // trim: whitespace around unquoted cells (`phoneNumber, externalId`) goes; a quoted cell keeps
  // its own, which is how an export writes a value with surrounding spaces (csv-cells.ts).
  const parser = parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true, trim: true });
  const utf8 = new Utf8Check();
  // pipeline, not pipe: an encoding (or read) error must end the parser, and with it the loop below
  const piped = pipeline(createReadStream(file), utf8, parser).catch(() => undefined);
  let end = 0;
  let empty = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { empty_lines: number; bytes: number } }>) {
      const line = end + 1 + info.empty_lines - empty;
      empty = info.empty_lines;
      end = line + record.reduce((n, cell) => n + countLf(cell), 0);
      yield { record, line, bytes: info.bytes };
    }
  } catch (err) {
    if (utf8.invalid) {
      const { offset, byte } = utf8.invalid;
      const hex = `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      throw new EncodingError(
        `${file} is not UTF-8: byte ${hex} at offset ${offset} (line ${lineAt(file, offset)}) is not valid UTF-8 there`,
      );
    }
    throw err;
  } finally {
    parser.destroy();
    await piped;
  }
}

function countLf(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Passes the bytes on unchanged once they are known to be UTF-8; a character
 * split between two reads is held back until its last byte has come.
 */
class Utf8Check extends Transform {
  /** the first byte that is not UTF-8, once found */
  invalid: { offset: number; byte: number } | undefined;
  private pending: Buffer = Buffer.alloc(0);
  /** file offset of `pending`'s first byte */
  private offset = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const complete = data.length - incompleteTail(data);
    const head = data.subarray(0, complete);
    if (!isUtf8(head)) {
      done(this.fail(head));
      return;
    }
    this.pending = Buffer.from(data.subarray(complete));
    this.offset += complete;
    done(null, head);
  }

  override _flush(done: TransformCallback): void {
    // a file that ends inside a character
    done(this.pending.length === 0 ? null : this.fail(this.pending));
  }

  private fail(data: Buffer): Error {
    const at = firstInvalid(data);
    this.invalid = { offset: this.offset + at, byte: data[at]! };
    return new EncodingError('not UTF-8');
  }
}

/** how many bytes at the end start a character that needs more bytes than are there */
function incompleteTail(data: Buffer): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const byte = data[data.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > back ? back : 0;
  }
  return 0;
}

/** the offset of the first bad byte in data that starts on a character and is not all UTF-8 */
function firstInvalid(data: Buffer): number {
  const text = new TextDecoder('utf-8').decode(data);
  // TextDecoder puts U+FFFD where the bytes go wrong; everything before it is UTF-8 and
  // re-encodes to the same bytes. A U+FFFD the file really holds (EF BF BD) is skipped.
  for (let i = text.indexOf('\uFFFD'); i !== -1; i = text.indexOf('\uFFFD', i + 1)) {
    const at = Buffer.byteLength(text.slice(0, i));
    if (!(data[at] === 0xef && data[at + 1] === 0xbf && data[at + 2] === 0xbd)) return at;
  }
  return 0; // not reached: isUtf8 and TextDecoder follow the same standard
}

/** the line of a byte offset, read again from the file: only an error needs it */
function lineAt(file: string, offset: number): number {
  const fd = openSync(file, 'r');
  const buffer = Buffer.alloc(64 * 1024);
  let line = 1;
  try {
    for (let read = 0; read < offset; ) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, offset - read), read);
      if (n === 0) break;
      for (let i = buffer.indexOf(10); i !== -1 && i < n; i = buffer.indexOf(10, i + 1)) line++;
      read += n;
    }
  } finally {
    closeSync(fd);
  }
  return line;
}

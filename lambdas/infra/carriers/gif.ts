import type { PaletteImage } from '../label-pdf';

/**
 * The first frame of a GIF (87a or 89a, GIF specification version 89a): what UPS returns as a
 * label. LZW-decoded into palette indices, de-interlaced, with the local or global colour table.
 * A malformed or truncated file is refused with a `GifUnreadable`, never read past its end.
 */
export class GifUnreadable extends Error {
  override readonly name = 'GifUnreadable';
}

/** Labels are at most a few thousand pixels a side; more is not a label. */
const maxSide = 8000;

export function decodeGif(buf: Buffer): PaletteImage {
  const fail = (why: string): never => {
    throw new GifUnreadable(`not a readable GIF: ${why}`);
  };
  if (buf.length < 13 || !/^GIF8[79]a$/.test(buf.toString('latin1', 0, 6))) fail('no GIF header');
  let pos = 13;
  const screenFlags = buf[10];
  let globalTable: Buffer | undefined;
  const need = (n: number) => {
    if (pos + n > buf.length) fail('truncated');
  };
  if (screenFlags & 0x80) {
    const size = 3 * 2 ** ((screenFlags & 7) + 1);
    need(size);
    globalTable = buf.subarray(pos, pos + size);
    pos += size;
  }
  const skipSubBlocks = () => {
    for (;;) {
      need(1);
      const n = buf[pos++];
      if (n === 0) return;
      need(n);
      pos += n;
    }
  };
  for (;;) {
    need(1);
    const block = buf[pos++];
    if (block === 0x21) {
      need(1);
      pos++;
      skipSubBlocks();
    } else if (block === 0x2c) {
      need(9);
      const width = buf.readUInt16LE(pos + 4);
      const height = buf.readUInt16LE(pos + 6);
      const flags = buf[pos + 8];
      pos += 9;
      if (width === 0 || height === 0 || width > maxSide || height > maxSide) fail(`a ${width}x${height} image`);
      let palette = globalTable;
      if (flags & 0x80) {
        const size = 3 * 2 ** ((flags & 7) + 1);
        need(size);
        palette = buf.subarray(pos, pos + size);
        pos += size;
      }
      if (!palette) fail('no colour table');
      need(1);
      const minCodeSize = buf[pos++];
      if (minCodeSize < 2 || minCodeSize > 8) fail(`LZW minimum code size ${minCodeSize}`);
      const data: Buffer[] = [];
      for (;;) {
        need(1);
        const n = buf[pos++];
        if (n === 0) break;
        need(n);
        data.push(buf.subarray(pos, pos + n));
        pos += n;
      }
      const indices = lzwDecode(Buffer.concat(data), minCodeSize, width * height, fail);
      return { width, height, palette: Buffer.from(palette!), indices: flags & 0x40 ? deinterlace(indices, width, height) : indices };
    } else {
      fail(block === 0x3b ? 'no image' : `unknown block 0x${block.toString(16)}`);
    }
  }
}

function lzwDecode(data: Buffer, minCodeSize: number, pixels: number, fail: (why: string) => never): Buffer {
  const out = Buffer.alloc(pixels);
  const clear = 1 << minCodeSize;
  const eoi = clear + 1;
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const stack = new Uint8Array(4097);
  for (let i = 0; i < clear; i++) {
    suffix[i] = i;
    first[i] = i;
  }
  let codeSize = minCodeSize + 1;
  let next = eoi + 1;
  let previous = -1;
  let written = 0;
  let bits = 0;
  let bitCount = 0;
  let at = 0;
  while (written < pixels) {
    while (bitCount < codeSize) {
      if (at >= data.length) return written === pixels ? out : fail('the image data ends early');
      bits |= data[at++] << bitCount;
      bitCount += 8;
    }
    const code = bits & ((1 << codeSize) - 1);
    bits >>>= codeSize;
    bitCount -= codeSize;
    if (code === clear) {
      codeSize = minCodeSize + 1;
      next = eoi + 1;
      previous = -1;
      continue;
    }
    if (code === eoi) break;
    if (previous === -1) {
      if (code >= clear) fail('a first code that is not a colour');
      out[written++] = code;
      previous = code;
      continue;
    }
    if (code > next) fail('a code out of sequence');
    let c = code === next ? previous : code;
    let sp = 0;
    if (code === next) stack[sp++] = first[previous];
    while (c >= clear) {
      stack[sp++] = suffix[c];
      c = prefix[c];
    }
    stack[sp++] = c;
    const head = c;
    while (sp > 0 && written < pixels) out[written++] = stack[--sp];
    if (next < 4096) {
      prefix[next] = previous;
      suffix[next] = head;
      first[next] = first[previous];
      next++;
      if (next === 1 << codeSize && codeSize < 12) codeSize++;
    }
    previous = code;
  }
  if (written < pixels) fail('fewer pixels than the image size');
  return out;
}

/** Interlaced rows come in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1. */
function deinterlace(indices: Buffer, width: number, height: number): Buffer {
  const out = Buffer.alloc(indices.length);
  let row = 0;
  for (const [start, step] of [
    [0, 8],
    [4, 8],
    [2, 4],
    [1, 2],
  ]) {
    for (let y = start; y < height; y += step) indices.copy(out, y * width, row * width, (row + 1) * width), row++;
  }
  return out;
}

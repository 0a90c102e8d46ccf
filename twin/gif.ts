/**
 * A GIF89a writer for the fake UPS, which prints its labels as GIF images like UPS does: one frame,
 * a global colour table, LZW-compressed palette indices (code sizes growing to 12 bits, a clear
 * code when the table is full).
 */
export function encodeGif(width: number, height: number, palette: Buffer, indices: Buffer): Buffer {
  const colors = palette.length / 3;
  const tableBits = Math.max(1, Math.ceil(Math.log2(Math.max(2, colors))));
  const table = Buffer.alloc(3 * 2 ** tableBits);
  palette.copy(table);
  const minCodeSize = Math.max(2, tableBits);
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  header[10] = 0x80 | ((tableBits - 1) << 4) | (tableBits - 1);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  const data = lzwEncode(indices, minCodeSize);
  const blocks: Buffer[] = [];
  for (let i = 0; i < data.length; i += 255) {
    const chunk = data.subarray(i, i + 255);
    blocks.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat([header, table, descriptor, Buffer.from([minCodeSize]), ...blocks, Buffer.from([0, 0x3b])]);
}

function lzwEncode(indices: Buffer, minCodeSize: number): Buffer {
  const clear = 1 << minCodeSize;
  const eoi = clear + 1;
  const out: number[] = [];
  let bits = 0;
  let bitCount = 0;
  let codeSize = minCodeSize + 1;
  const emit = (code: number) => {
    bits |= code << bitCount;
    bitCount += codeSize;
    while (bitCount >= 8) {
      out.push(bits & 0xff);
      bits >>>= 8;
      bitCount -= 8;
    }
  };
  let table = new Map<number, number>();
  let next = eoi + 1;
  emit(clear);
  let prefix = indices[0];
  for (let i = 1; i < indices.length; i++) {
    const k = indices[i];
    const key = prefix * 256 + k;
    const found = table.get(key);
    if (found !== undefined) {
      prefix = found;
      continue;
    }
    emit(prefix);
    if (next >= 4096) {
      emit(clear);
      table = new Map();
      next = eoi + 1;
      codeSize = minCodeSize + 1;
    } else {
      if (next >= 1 << codeSize) codeSize++;
      table.set(key, next++);
    }
    prefix = k;
  }
  emit(prefix);
  emit(eoi);
  if (bitCount > 0) out.push(bits & 0xff);
  return Buffer.from(out);
}

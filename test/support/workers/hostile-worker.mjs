// Answers with cells that are not plain values (objects with __proto__ and constructor keys).
import { parentPort } from 'node:worker_threads';

const cell = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}');
parentPort.postMessage({ ok: true, rows: [['HAWB', cell]], rowNumbers: [1] });

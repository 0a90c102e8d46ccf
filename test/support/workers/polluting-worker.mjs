// Stands in for a parser a crafted file has taken over: it pollutes the prototypes of its own
// realm, then answers with one ordinary row (the protocol of lambdas/infra/spreadsheet-worker.mjs).
import { parentPort } from 'node:worker_threads';

Object.prototype.polluted = 'yes';
Object.defineProperty(Object.prototype, 'isAdmin', { value: true, enumerable: true });
Array.prototype.extra = 'from the worker';
parentPort.postMessage({ ok: true, rows: [['Guía Hija', 'Destinatario']], rowNumbers: [1] });

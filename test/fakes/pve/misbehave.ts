// Carries out a Misbehaviour on one request, so the fake can play a broken or hostile member.
// None of this is PVE's behaviour: each is only ever done when a test asks for it.
import type { ServerResponse } from 'node:http';

import type { Misbehaviour } from './faults';

export const misbehave = (res: ServerResponse, fault: Misbehaviour): void => {
  switch (fault.kind) {
    case 'reset':
      res.socket?.destroy();
      return;
    case 'redirect':
      res.writeHead(fault.status, { Location: fault.location, 'Content-Length': 0 });
      res.end();
      return;
    case 'raw':
      res.writeHead(fault.status, {
        'Content-Type': fault.contentType,
        'Content-Length': Buffer.byteLength(fault.body),
      });
      res.end(fault.body);
      return;
    case 'slow-body':
      return slowBody(res, fault.bytes, fault.intervalMs);
    case 'endless-body':
      return endlessBody(res);
  }
};

const slowBody = (res: ServerResponse, bytes: number, intervalMs: number): void => {
  res.writeHead(200, { 'Content-Type': 'application/json;charset=UTF-8', 'Content-Length': bytes });
  let sent = 0;
  const timer = setInterval(() => {
    sent += 1;
    res.write(sent === 1 ? '{' : ' ');
    if (sent >= bytes) clearInterval(timer);
  }, intervalMs);
  res.once('close', () => clearInterval(timer));
};

const endlessBody = (res: ServerResponse): void => {
  res.writeHead(200, { 'Content-Type': 'application/json;charset=UTF-8' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let open = true;
  res.once('close', () => {
    open = false;
  });
  const pump = (): void => {
    while (open && res.write(chunk));
    if (open) res.once('drain', pump);
  };
  pump();
};

// The fake PVE the tests start: the simulator users run (src/simulator/pve) plus faults a test injects (a
// failure, a hung request, an answer no PVE sends, an edit landing just before a request), so a test proves how
// a client treats them while the simulator itself stays free of anything PVE never does.
import type { ServerResponse } from 'node:http';

import {
  startPveSimulator,
  type FakePveOptions,
  type InterceptedRequest,
  type PveSimulator,
} from '../../../src/simulator/pve/server';
import { PveError, sendBare, sendError } from '../../../src/simulator/pve/envelope';
import { Faults, type Misbehaviour, type PathPattern } from './faults';
import { misbehave } from './misbehave';

export * from '../../../src/simulator/pve/server';
export type { Misbehaviour, PathPattern } from './faults';

export interface FakePve extends PveSimulator {
  /** The next matching request fails with this status and message (PVE envelope; 401 is bare). */
  failNext(method: string, path: PathPattern, status: number, message: string, errors?: Record<string, string>): void;
  /** The next `times` matching requests are read and never answered. @default times 1 */
  hang(method: string, path: PathPattern, times?: number): void;
  /** The next `times` matching requests get an answer PVE never sends. @default times 1 */
  misbehave(method: string, path: PathPattern, misbehaviour: Misbehaviour, times?: number): void;
  /** Runs `action` (an out-of-band edit) once, just before the next matching request is handled. */
  beforeNext(method: string, path: PathPattern, action: () => void): void;
}

// True when the request was a fault's: answered here, or left hanging.
const injectFault = (faults: Faults, oldServer: boolean) => {
  return ({ method, paths }: InterceptedRequest, res: ServerResponse): boolean => {
    faults.takeHook(method, paths)?.();
    const fault = faults.take(method, paths);
    if (fault === undefined) return false;
    if (fault === 'hang') return true;
    if ('kind' in fault) misbehave(res, fault);
    else if (fault.status === 401) sendBare(res, 401, fault.message);
    else sendError(res, new PveError(fault.status, fault.message, fault.errors), oldServer);
    return true;
  };
};

export const startFakePve = async (options: FakePveOptions = {}): Promise<FakePve> => {
  const faults = new Faults();
  const simulator = await startPveSimulator({
    ...options,
    intercept: injectFault(faults, options.oldServer ?? false),
  });
  return {
    ...simulator,
    failNext: (method, path, status, message, errors) => faults.addFailure(method, path, { status, message, errors }),
    hang: (method, path, times = 1) => faults.addHang(method, path, times),
    misbehave: (method, path, misbehaviour, times = 1) => faults.addMisbehaviour(method, path, misbehaviour, times),
    beforeNext: (method, path, action) => faults.addHook(method, path, action),
  };
};

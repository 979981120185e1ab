/**
 * A session with the V8 inspector of a process started with `--inspect=127.0.0.1:PORT`: the first target's
 * DevTools WebSocket, one call at a time answered by id. The memory and garbage-collection probes of bench:real
 * (./operators.ts) and bench/real/ab.ts talk to kubeop through it.
 * @module
 */

/** An open inspector connection. */
export interface InspectorSession {
  /** Sends one DevTools protocol call and resolves with its `result` (`{}` when it has none). */
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Closes the WebSocket. */
  close(): void;
}

/**
 * Connects to the inspector listening on 127.0.0.1:`port`.
 *
 * @example
 * ```ts ignore
 * const session = await openInspector(9229);
 * try {
 *   await session.call("HeapProfiler.collectGarbage");
 *   const usage = await session.call("Runtime.getHeapUsage");
 * } finally {
 *   session.close();
 * }
 * ```
 */
export async function openInspector(port: number): Promise<InspectorSession> {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map<number, (v: Record<string, unknown>) => void>();
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data as string);
    pending.get(msg.id)?.(msg.result ?? {});
  };
  return {
    call: (method, params) =>
      new Promise<Record<string, unknown>>((resolve) => {
        pending.set(++id, resolve);
        ws.send(JSON.stringify(params ? { id, method, params } : { id, method }));
      }),
    close: () => ws.close(),
  };
}

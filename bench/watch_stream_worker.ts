/**
 * Runs {@link startStreamServer} on its own thread, so the benchmarked client's event loop does not also pay for
 * serving. Message in: `{ events, objectBytes, listItems }`; message out: `{ url }`; `"close"` stops it.
 * @module
 */

import { encodeWatchBody, listBody, sampleObject, startStreamServer } from "./watch_stream_server.ts";

declare const self: {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(m: unknown): void;
  close(): void;
};

let server: { url: string; close(): void } | undefined;

self.onmessage = (e: MessageEvent) => {
  if (e.data === "close") {
    server?.close();
    self.close();
    return;
  }
  const { events, objectBytes, listItems } = e.data as { events: number; objectBytes: number; listItems: number };
  const { body } = encodeWatchBody(events, objectBytes);
  const items = Array.from({ length: listItems }, (_, i) => sampleObject(i, objectBytes, i + 2));
  const rv = String(listItems + 2);
  server = startStreamServer({
    watchBody: body,
    listPage: (cont, limit) => {
      const start = Number(cont ?? 0);
      const n = limit ?? items.length;
      const next = start + n < items.length ? String(start + n) : undefined;
      return listBody(items.slice(start, start + n), rv, next);
    },
  });
  self.postMessage({ url: server.url });
};

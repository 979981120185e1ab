import assert from "node:assert/strict";
import { cronScheduleError } from "./batch.ts";

Deno.test("CronJob schedules: five fields, ranges, names, steps and descriptors as robfig/cron parses them", () => {
  for (const ok of ["*/5 * * * *", "0 0 1 jan-mar mon", "0,30 8-18 * * 1-5", "@hourly", "@every 1h"]) {
    assert.equal(cronScheduleError(ok), undefined, ok);
  }
  assert.equal(cronScheduleError("* * *"), "expected exactly 5 fields, found 3: [* * *]");
  assert.equal(cronScheduleError("61 * * * *"), "end of range (61) above maximum (59): 61");
  assert.equal(cronScheduleError("* * 0 * *"), "beginning of range (0) below minimum (1): 0");
  assert.equal(
    cronScheduleError("CRON_TZ=UTC 0 * * * *"),
    "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
  );
  assert.equal(cronScheduleError("@fortnightly"), "unrecognized descriptor: @fortnightly");
});

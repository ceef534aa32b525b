-- wrk `done` hook for bench/run.js and bench/soak.js: one machine-readable line with the
-- totals and the latency percentiles (microseconds), which wrk's own text output rounds.
done = function(summary, latency, requests)
  local function percentile(q)
    if summary.requests == 0 then
      return 0
    end
    return latency:percentile(q)
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"p50_us":%.0f,"p90_us":%.0f,"p99_us":%.0f,"max_us":%.0f,' ..
      '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    percentile(50), percentile(90), percentile(99), summary.requests == 0 and 0 or latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end

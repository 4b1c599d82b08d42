-- wrk script for the Paduraksa end-to-end harness.
-- Usage: wrk ... -s rotate.lua URL -- REQUESTS_FILE
-- REQUESTS_FILE has one request per line: the path, then "Name: value" headers, tab-separated.
-- Every request is formatted once in init(); request() only hands out the next prebuilt string,
-- so the Lua cost per request is an index increment. Each thread starts at its own offset.
-- done() prints one line "WRKRESULT {json}" that harness.py parses.

local counter = 0
local threads = {}

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local reqs = {}
local n = 0
local i = 0

local function split(line)
  local out = {}
  for field in string.gmatch(line, "[^\t]+") do
    table.insert(out, field)
  end
  return out
end

function init(args)
  local file = args[1]
  for line in io.lines(file) do
    if #line > 0 then
      local f = split(line)
      local headers = {}
      for k = 2, #f do
        local name, value = string.match(f[k], "^([^:]+): ?(.*)$")
        headers[name] = value
      end
      n = n + 1
      reqs[n] = wrk.format("GET", f[1], headers)
    end
  end
  i = ((id or 0) * 97) % n
end

function request()
  i = i + 1
  if i > n then
    i = 1
  end
  return reqs[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKRESULT {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, "read": %d, ' ..
    '"write": %d, "status": %d, "timeout": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, ' ..
    '"max_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end

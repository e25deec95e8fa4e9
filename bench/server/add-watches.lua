-- wrk script: POST /v1/watches for distinct valid numbers, one per request; each wrk thread numbers its own
-- range (START, default 50000000000, plus a million per thread), so no two requests add the same number.
local counter = 0
local base = tonumber(os.getenv("START") or "50000000000")
local thread_base = base
function setup(thread)
  thread_base = thread_base + 1000000
  thread:set("first", thread_base)
end
-- LIMIT (default unlimited) numbers per thread at most; after them, cheap health checks.
local limit = tonumber(os.getenv("LIMIT") or "1e12")
request = function()
  counter = counter + 1
  if counter > limit then return wrk.format("GET", "/healthz") end
  local eleven = first + counter
  local number = string.format("%011d%d", eleven, eleven % 7)
  return wrk.format("POST", "/v1/watches", {["Content-Type"] = "application/json"}, '{"number": "' .. number .. '"}')
end
local acknowledged = 0
response = function(status)
  if status == 201 or status == 200 then acknowledged = acknowledged + 1 end
end

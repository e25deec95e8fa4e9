-- wrk script: GET /v1/shipments/{number} for a random number out of a fixed set of valid numbers.
-- The set size comes from the environment (NUMBERS, default 100); the same seed gives the same set.
local count = tonumber(os.getenv("NUMBERS") or "100")
local numbers = {}
for index = 1, count do
  local eleven = 40000000000 + index * 7919
  numbers[index] = string.format("%011d%d", eleven, eleven % 7)
end
math.randomseed(2026)
request = function()
  return wrk.format("GET", "/v1/shipments/" .. numbers[math.random(count)])
end

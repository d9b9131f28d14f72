-- a new key per request (thread id + counter): every request creates another entry, so every request is an update
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("id", threads .. "." .. os.time())
end
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/", { ["x-k"] = id .. "-" .. n })
end

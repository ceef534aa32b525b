-- wrk script for bench/soak.js: a mix of GET paths at a paced rate.
--
--   wrk ... -s bench/lua/soak.lua URL -- RATE CONNECTIONS PATH...
--
-- RATE: target requests per second of this thread (0: as fast as the server answers).
-- PATH: a path, where `%d` is replaced by a counter running 1..333, so that pages and ids vary.
-- Pacing: wrk calls delay() before each next request of a connection; the pause starts at
-- CONNECTIONS / RATE seconds and is corrected once a second by the rate achieved in the last
-- second (wrk2 is not packaged in Debian). The `done` hook is bench/lua/wrk-report.lua's.

local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'wrk-report.lua')

local templates = {}
local rate = 0
local pause = 0
local index = 0
local counter = 0
local second = nil
local answered = 0
local adjusting = false

function init(args)
  rate = tonumber(args[1]) or 0
  local connections = tonumber(args[2]) or 1
  for i = 3, #args do
    templates[#templates + 1] = args[i]
  end
  if #templates == 0 then
    templates[1] = wrk.path
  end
  if rate > 0 then
    pause = connections * 1000 / rate
  end
end

function request()
  index = index % #templates + 1
  local path = templates[index]
  if path:find('%d', 1, true) then
    counter = counter % 333 + 1
    path = path:gsub('%%d', tostring(counter))
  end
  return wrk.format('GET', path)
end

function delay()
  if rate <= 0 then
    return 0
  end
  local now = os.time()
  if second == nil then
    second = now
  elseif now ~= second then
    -- The first second seen is partial: adjust from the second one on.
    if adjusting then
      local achieved = answered / (now - second)
      if achieved > 0 then
        -- Damped correction: too fast makes the pause longer, too slow shorter.
        pause = pause * math.sqrt(achieved / rate)
      else
        pause = pause / 2
      end
      pause = math.max(0, math.min(pause, 60000))
    end
    adjusting = true
    second = now
    answered = 0
  end
  answered = answered + 1
  return pause
end

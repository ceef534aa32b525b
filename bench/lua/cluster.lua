-- wrk script for the cluster rows of bench/run.js (bench/rows/cluster.js): writes of marbles with
-- unique values.
--
--   wrk ... -s bench/lua/cluster.lua URL -- MODE RUN IDS
--
-- MODE: create (POST one marble, named after RUN, the thread and a counter), update (PATCH the
--   price of the marbles IDS, a comma-separated list, in turn).
-- The `done` hook is bench/lua/wrk-report.lua's.

local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'wrk-report.lua')

local mode, run
local ids = {}
local counter = 0
local base

-- One wrk thread (bench/rows/cluster.js runs wrk with -t1): the counter alone makes names unique.
function init(args)
  mode = args[1]
  run = args[2]
  for id in string.gmatch(args[3] or '', '%d+') do
    ids[#ids + 1] = id
  end
  base = wrk.path:gsub('/$', '')
end

function request()
  counter = counter + 1
  local headers = { ['Content-Type'] = 'application/json' }
  if mode == 'create' then
    local name = 'cluster-' .. run .. '-' .. counter
    return wrk.format('POST', base, headers, '{"name":"' .. name .. '","price":"12.5"}')
  end
  local id = ids[1 + counter % #ids]
  local price = string.format('%d.%d', 1 + counter % 900, 1 + counter % 9)
  return wrk.format('PATCH', base .. '/' .. id, headers, '{"price":"' .. price .. '"}')
end

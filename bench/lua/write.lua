-- wrk script for the write scenarios of bench/run.js: every request a write of marbles, with
-- unique values.
--
--   wrk ... -s bench/lua/write.lua URL -- MODE FROM TO RUN KEY IFMATCH
--
-- MODE: create (POST one marble), bulk (POST an array of 100), update (PATCH radius_mm and
--   price), adjust (PATCH /:id/adjust_price), delete (DELETE /:id).
-- FROM, TO: the ids the run may change (update, adjust: in turn, over and over; delete: each
--   once, in order). bench/run.js creates them before the run, at version 1.
-- RUN: a tag unique to the run, in every name and Idempotency-Key, so that no two collide.
-- KEY: 1 for an Idempotency-Key on every request, a new one each time.
-- IFMATCH: none; etag for If-Match with the record's current ETag (version 1 at first, then the
--   one its last response carried: a record comes round again only after every other id of the
--   range, long after its previous answer); star for If-Match: *.
-- The `done` hook is bench/lua/wrk-report.lua's.

local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'wrk-report.lua')

local mode, from, to, run, key, ifmatch
local counter = 0
local nextId
local versions = {}
local thread_index = 0
local base

local created = 0
function setup(thread)
  created = created + 1
  thread:set('thread_index', created)
end

function init(args)
  mode = args[1]
  from = tonumber(args[2])
  to = tonumber(args[3])
  run = args[4]
  key = args[5] == '1'
  ifmatch = args[6] or 'none'
  thread_index = tonumber(wrk.thread:get('thread_index')) or 1
  -- Threads share the range: thread i of n takes every n-th id from FROM + i - 1.
  nextId = from + thread_index - 1
  base = wrk.path:gsub('/$', '')
  if ifmatch == 'etag' then
    response = track
  end
end

local function price(n)
  return string.format('%d.%d', 1 + n % 900, 1 + n % 9)
end

local function marble(name)
  return '{"name":"' .. name .. '","radius_mm":12,"price":"12.5","user_id":3}'
end

local function takeId()
  local id = nextId
  nextId = nextId + 1
  if mode ~= 'delete' and nextId > to then
    nextId = from + thread_index - 1
  end
  return id
end

function request()
  counter = counter + 1
  local name = 'bench-' .. run .. '-' .. thread_index .. '-' .. counter
  -- The -H headers of the run (Authorization for the JWT rows): wrk.format takes its headers
  -- table instead of wrk.headers, not merged with it.
  local headers = { ['Content-Type'] = 'application/json' }
  for name, value in pairs(wrk.headers) do
    if name ~= 'Host' then headers[name] = value end
  end
  if key then
    headers['Idempotency-Key'] = name
  end
  if mode == 'create' then
    return wrk.format('POST', base, headers, marble(name))
  end
  if mode == 'bulk' then
    local items = {}
    for i = 1, 100 do
      items[i] = marble(name .. '-' .. i)
    end
    return wrk.format('POST', base, headers, '[' .. table.concat(items, ',') .. ']')
  end
  local id = takeId()
  if ifmatch == 'etag' then
    headers['If-Match'] = '"' .. id .. '.' .. (versions[id] or 1) .. '"'
  elseif ifmatch == 'star' then
    headers['If-Match'] = '*'
  end
  if mode == 'update' then
    return wrk.format('PATCH', base .. '/' .. id, headers,
      '{"radius_mm":' .. (1 + counter % 50) .. ',"price":"' .. price(counter) .. '"}')
  end
  if mode == 'adjust' then
    return wrk.format('PATCH', base .. '/' .. id .. '/adjust_price', headers,
      '{"price":"' .. price(counter) .. '"}')
  end
  headers['Content-Type'] = nil
  return wrk.format('DELETE', base .. '/' .. id, headers)
end

-- The `response` hook where If-Match needs the current version (init sets it): wrk parses the
-- headers of every response once a script has that hook.
function track(status, headers)
  local tag = headers['ETag'] or headers['etag'] or headers['Etag']
  if tag then
    local id, version = tag:match('^"(%d+)%.(%d+)"$')
    if id then
      versions[tonumber(id)] = tonumber(version)
    end
  end
end

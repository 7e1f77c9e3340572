/** `swim agent --help`: every flag of the agent. */
import { MAX_HANDLER_PROCESSES } from '../../agent/query-handlers.js';
import { DEFAULT_RPC, RPC_TOKEN_ENV, RPC_TOKEN_MIN_LENGTH } from '../../flags/rpc.js';

export const AGENT_USAGE = `usage: swim agent --name NAME --bind HOST:PORT [flags]

  --name NAME              unique member name (required)
  --bind HOST:PORT         IP literal and port for UDP packets and TCP streams (required; port 0 = any free port)
  --advertise HOST:PORT    address peers dial (default: the bind address; required when binding 0.0.0.0 or ::)
  --join HOST:PORT,...     seeds to join at start (repeatable); an unreachable seed is logged, the agent keeps running
  --retry-join HOST:PORT   a seed to join at start and retry until one answers (repeatable), as Serf's -retry-join: for
                           agents started together (compose, a systemd target); a host name is resolved at every attempt
                           and every address it has (A and AAAA) is tried
  --retry-interval DUR     wait between retry-join attempts (default 30s; e.g. 500ms, 5s, 1m30s)
  --retry-max N            retry-join attempts in all before the agent gives up and exits 1 (default 0: no limit)
  --profile PROFILE        lan (default), wan, local or memberlist (lan with memberlist's behaviour)
  --wire swim|memberlist   wire format: swim (default), or memberlist to speak memberlist's wire format and join
                           Serf agents and other memberlist clusters (no --label: memberlist 0.2 knows none)
  --tag key=value          a tag (repeatable): the member's metadata, sent as Serf tags (0xff + a msgpack map of
                           string to string, what Serf/Consul/Nomad read) in every wire mode; at most 512 bytes encoded
  --config key=value       override a core config field (repeatable), e.g. --config probeIntervalMs=200 (validated)
  --transport key=value    override a bound of the UDP transport (repeatable), e.g. --transport maxFrameBytes=8388608
                           (maxFrameBytes, maxStreamBytesBuffered, maxStreamBytesPerSource, maxStreamConnections,
                           maxStreamConnectionsPerSource, maxBurst, maxQueuedPackets, recvBufferBytes; validated)
  --rpc HOST:PORT          control endpoint, HTTP (default ${DEFAULT_RPC}; port 0 = any free port); an address
                           other than loopback needs --rpc-token
  --rpc-token TOKEN        every control request must carry it (Authorization: Bearer TOKEN; at least
                           ${RPC_TOKEN_MIN_LENGTH} characters; default: $${RPC_TOKEN_ENV}, else no token)
  --log text|json          log format: lines (default) or one JSON object per line
  --metrics HOST:PORT      serve Prometheus metrics (swim_*, Node's process_*) at http://HOST:PORT/metrics, its own
                           HTTP server (IP literal; port 0 = any free port; read-only, no token)
  --leave-timeout MS       longest wait for the leave to spread on SIGINT/SIGTERM or \`swim leave\` (default 5000)
  --encrypt KEY            encrypt and authenticate gossip with this key (base64 of 16, 24 or 32 bytes; \`swim keygen\`);
                           with --keyring-file, installed in the file's keyring when the file does not exist yet
  --keyring-file FILE      the keyring (a JSON array of base64 keys, primary first), loaded at start and rewritten
                           after every \`swim keys\` change
  --label NAME             cluster label (1-255 bytes): members with another label, or none, are ignored
  --verify-incoming BOOL   refuse what does not decrypt (default true); false accepts plaintext too, to turn
                           encryption on in a running cluster
  --verify-outgoing BOOL   encrypt what is sent (default true); false sends plaintext, for the same migration
  --snapshot FILE          keep a snapshot log there (Serf's -snapshot): the agent's incarnation, the members it
                           knows and, with --wire memberlist, Serf's Lamport clocks, appended as they change and
                           compacted; on restart it comes back above its last incarnation and rejoins the members
                           it knew, unless it had left gracefully (SIGINT/SIGTERM, swim leave)
  --rejoin-after-leave     with --snapshot: rejoin the known members even after a graceful leave (Serf's -rejoin)
  --query-handler NAME=CMD answer the queries named NAME (* for every query without a handler of its own) with a
                           shell command (repeatable), as Serf's query event handlers: /bin/sh -c CMD with the
                           payload on stdin and SERF_EVENT=query, SERF_QUERY_NAME, SERF_QUERY_LTIME, SERF_SELF_NAME,
                           SERF_SELF_ROLE, SERF_TAG_<TAG> set; its stdout (first 8 KiB, when it exits 0) is the
                           response (at most 1024 bytes encoded); killed at the query's deadline; ${MAX_HANDLER_PROCESSES} run at once
  --config-file FILE       a JSON object with any of these flags as keys ({"name": "n1", "join": ["10.0.0.1:7946"],
                           "tag": {"role": "web"}, "leave-timeout": 5000}); a flag on the command line wins over
                           the file (for a repeatable flag, its whole list); an unknown key is an error

Flags take --flag VALUE or --flag=VALUE; a repeatable flag takes one value each time it is given.`;

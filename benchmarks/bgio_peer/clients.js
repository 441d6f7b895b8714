// The peer's clients: TABLES matches of Tricks (game.js) on the boardgame.io server at PORT,
// four boardgame.io clients a match (its Client over socket.io, one WebSocket each), each a bot
// that plays a random legal move as soon as it is its turn (after THINK seconds on average if
// told). A finished match is replaced by a new one. Speaks the protocol of
// benchmarks/server_load.py's clients with --interleave: after WARMUP seconds of play (and with
// SPREAD 1, once each match has played a number of its moves drawn uniformly below a whole
// match's, holding its next meanwhile, so that the windows find the matches at every stage of
// their games, as server_load.py's --spread does) the bots hold their moves and "ready" is printed; then for each line read ("SECONDS [THINK]") they play
// that long and a line of JSON says what was measured (moves/s, p50 and p99 in seconds from a
// move leaving to the mover's next state, the server's CPU µs a move, read from /proc); the
// end of the input ends the run.
//
// node clients.js PORT TABLES WARMUP SERVER_PID SPREAD
const fs = require('fs');
const readline = require('readline');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Tricks, legalCards, PLAYERS, ROUNDS } = require('./game');

const [port, tables, warmup, serverPid, spread] = process.argv.slice(2).map(Number);
const server = `http://127.0.0.1:${port}`;
const TICKS = 100; // Linux's clock ticks a second, in /proc/PID/stat
const MATCH_MOVES = PLAYERS * ROUNDS + (PLAYERS * ROUNDS * (ROUNDS + 1)) / 2; // bids, then cards

const tally = {
  paused: false,
  warming: Boolean(spread),
  stopped: false,
  window: null,
  latencies: [],
  held: [],
  think: 0,
};
const inFlight = new Set();

function serverCpu() {
  const fields = fs.readFileSync(`/proc/${serverPid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

async function post(path, body) {
  const response = await fetch(`${server}/games/tricks${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

class Seat {
  constructor(table, matchID, playerID, credentials) {
    this.table = table;
    this.seat = Number(playerID);
    this.lastState = -1;
    this.sent = null;
    this.client = Client({
      game: Tricks,
      multiplayer: SocketIO({ server, socketOpts: { forceNew: true, transports: ['websocket'] } }),
      matchID,
      playerID,
      credentials,
      debug: false,
    });
    this.client.subscribe((state) => this.seen(state));
    this.client.start();
  }

  seen(state) {
    if (!state || state._stateID <= this.lastState) return;
    this.lastState = state._stateID;
    if (this.sent && state._stateID > this.sent.stateID) {
      if (this.sent.window !== null && this.sent.window === tally.window) {
        tally.latencies.push(performance.now() - this.sent.at);
      }
      inFlight.delete(this);
      this.sent = null;
    }
    if (state.ctx.gameover) {
      this.table.over();
      return;
    }
    if (state.ctx.currentPlayer !== String(this.seat) || this.sent) return;
    const { G } = state;
    const move =
      G.phase === 'bid'
        ? ['bid', Math.floor(Math.random() * (G.round + 1))]
        : ['play', pick(legalCards(G, this.seat))];
    this.later(move, state._stateID);
  }

  later(move, stateID) {
    const thinking = (0.5 + Math.random()) * tally.think * 1000;
    setTimeout(() => this.play(move, stateID), thinking);
  }

  play(move, stateID) {
    if (tally.stopped || this.stopped) return;
    const { table } = this;
    if (tally.paused || (tally.warming && table.left <= 0)) {
      tally.held.push([this, move, stateID]);
      return;
    }
    if (tally.warming) table.left -= 1;
    this.sent = { stateID, at: performance.now(), window: tally.window };
    inFlight.add(this);
    this.client.moves[move[0]](move[1]);
  }

  stop() {
    if (this.stopped) return; // a finished match's seats, stopped already, until its next one opens
    this.stopped = true;
    inFlight.delete(this);
    this.client.stop();
  }
}

const pick = (choices) => choices[Math.floor(Math.random() * choices.length)];

class Table {
  constructor() {
    this.left = spread ? Math.floor(Math.random() * MATCH_MOVES) : 0;
  }

  async open() {
    this.ended = false;
    const { matchID } = await post('/create', { numPlayers: PLAYERS });
    const seats = [];
    for (let player = 0; player < PLAYERS; player += 1) {
      const joined = await post(`/${matchID}/join`, {
        playerID: String(player),
        playerName: `p${player}`,
      });
      seats.push([String(player), joined.playerCredentials]);
    }
    this.seats = seats.map(([player, credentials]) => new Seat(this, matchID, player, credentials));
  }

  over() {
    if (this.ended) return;
    this.ended = true;
    setImmediate(() => {
      this.seats.forEach((seat) => seat.stop());
      if (!tally.stopped) this.open().catch(fail);
    });
  }
}

function fail(error) {
  console.error(error);
  process.exit(1);
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function hold() {
  tally.paused = true;
  const settled = performance.now() + 1000;
  while (inFlight.size && performance.now() < settled) await sleep(0.01);
}

function resume() {
  tally.paused = false;
  for (const [seat, move, stateID] of tally.held.splice(0)) {
    if (seat.lastState === stateID) seat.later(move, stateID);
  }
}

function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}

async function main() {
  const opened = [];
  for (let table = 0; table < tables; table += 1) opened.push(new Table());
  for (const table of opened) await table.open();
  await sleep(warmup);
  while (opened.some((table) => table.left > 0)) await sleep(0.05);
  tally.warming = false;
  await hold();
  console.log('ready');
  let number = 0;
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const [seconds, think] = line.trim().split(/\s+/).map(Number);
    tally.think = think || 0;
    const first = tally.latencies.length;
    tally.window = number;
    const before = serverCpu();
    resume();
    await sleep(seconds);
    tally.window = null;
    const cpu = serverCpu() - before;
    await hold();
    const latencies = tally.latencies.slice(first).sort((a, b) => a - b);
    const moves = latencies.length / seconds;
    const window = {
      per_second: moves,
      p50: quantile(latencies, 0.5) / 1000,
      p99: quantile(latencies, 0.99) / 1000,
      us_per_move: moves ? (1e6 * cpu) / seconds / moves : null,
    };
    console.log(JSON.stringify(window));
    number += 1;
  }
  tally.stopped = true;
  opened.forEach((table) => table.seats.forEach((seat) => seat.stop()));
  process.exit(0);
}

main().catch(fail);

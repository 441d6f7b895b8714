// The peer's server: boardgame.io serving the Tricks game (game.js) on the port given, its
// matches kept in boardgame.io's default storage (in memory). Prints "listening" when ready.
const { Server, Origins } = require('boardgame.io/server');
const { Tricks } = require('./game');

const port = Number(process.argv[2]);
const server = Server({ games: [Tricks], origins: [Origins.LOCALHOST] });
server.run(port, () => console.log('listening'));

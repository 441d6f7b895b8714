// Placeholder until this game's board is drawn: every move through the generic action bar.
const board = {
  seat: (view, index) => ({ score: view.scores?.[index], handSize: view.hand_sizes?.[index] }),
  center: () => null,
  hand: () => null,
  prompt: () => "",
  handles: () => false,
  describe: () => [],
};
export default board;

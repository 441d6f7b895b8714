"""The games as OpenSpiel Python games, so that OpenSpiel's algorithms and tests run on them.

``register(name, players, **options)`` registers game ``name`` with pyspiel under the short
name ``python_tapisvert_<name>`` (the players and options given are its default parameters)
and returns that name for ``pyspiel.load_game``; every option is a parameter, one whose
default is ``None`` (a seat drawn at random, a size the game derives) a text, ``""`` for
``None``. Chance is explicit: a chance node lists the engine's outcomes and their
probabilities. A seat's actions are the compact indices of the game's encoding
(``tapisvert.encoding``), so that ``num_distinct_actions`` is small and fixed. What a seat is
told comes from its observation alone: its information-state and observation strings are the
observation's JSON form, its tensors the encoding's (a spectator's for a public observer). A
seat's observation holds everything it may know, its past included, so the two are the same.
``resample_from_infostate`` draws the hidden information with ``game.sample_state``, which is
what OpenSpiel's IS-MCTS asks for.

``register_small("wizard-6-cards")`` registers a game's small variant (its
``GamePlugin.small_variants``) under a name of its own (``python_tapisvert_wizard_6_cards``),
for OpenSpiel's exact tools to solve, and ``bot_policy`` turns a bot into a tabular policy over
every information state of such a game (``benchmarks/exploitability.py``).

>>> import pyspiel
>>> from tapisvert.envs.openspiel import register
>>> game = pyspiel.load_game(register("wizard", players=4, rounds="1,2"))
>>> game.num_distinct_actions(), game.information_state_tensor_shape()
(79, [424])
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from tapisvert.bots import make_bot
from tapisvert.core.extras import OPENSPIEL_MODULES, needs
from tapisvert.core.game import CHANCE, TERMINAL, Action, Game, Observation, Seat, State
from tapisvert.core.options import OptionSpec
from tapisvert.core.records import actor_label
from tapisvert.core.registry import SmallVariant, load_game, plugins

with needs("openspiel", "tapisvert.envs.openspiel", *OPENSPIEL_MODULES):
    import numpy
    import pyspiel
    from open_spiel.python import policy
    from open_spiel.python.algorithms import get_all_states, ismcts, mcts

    from tapisvert.encoding import Encoding, encoding_for

UNBOUNDED_LENGTH = 2**31 - 1
"""OpenSpiel's ``max_game_length`` for a game whose rules bound no length (a C++ ``int``)."""

ISMCTS_SIMULATIONS = 200
"""Simulations per decision of the ``openspiel-ismcts`` bot."""


def short_name(name: str) -> str:
    """The name pyspiel knows game ``name`` by."""
    return f"python_tapisvert_{name}"


SPIEL_COMMA = ";"
"""Stands for a comma in a text parameter: OpenSpiel's game strings split on commas."""


def spiel_text(value: Any) -> Any:
    """A text parameter as OpenSpiel can write and read it back in a game string.

    Its commas become ``SPIEL_COMMA``, and one is added at the end of a text OpenSpiel would
    read as a number or a truth value (``rounds=3;`` for ``rounds="3"``).
    """
    if not isinstance(value, str):
        return value
    text = value.replace(",", SPIEL_COMMA)
    if text.lower() in ("true", "false") or (text and not text.strip("+-0123456789.")):
        text += SPIEL_COMMA
    return text


def rules_text(value: Any) -> Any:
    """The option value a text parameter stands for (the inverse of ``spiel_text``): an empty
    text is ``None``, the default of an option the game settles itself."""
    if not isinstance(value, str):
        return value
    return ",".join(part for part in value.split(SPIEL_COMMA) if part) or None


def parameter(spec: OptionSpec, value: object) -> Any:
    """Option ``spec``'s ``value`` as a parameter, of the type of the option's default: a
    text where that default is ``None`` (an OpenSpiel parameter is never one), ``""`` for it,
    and the notation's ``P1`` for a seat."""
    if spec.default is None:
        if value is None:
            return ""
        return actor_label(value) if spec.kind == "seat" and isinstance(value, int) else str(value)
    return str(value) if isinstance(spec.default, str) else value


def register(name: str, players: int | None = None, **options: Any) -> str:
    """Register game ``name`` with pyspiel and return its short name.

    ``players`` and ``options`` become the default parameters; every option is a parameter
    too, so ``pyspiel.load_game`` may change it (an option whose default is ``None`` as a
    text: ``{"first_dealer": "P1"}``, ``""`` for ``None``). Registering again replaces the
    defaults. A text parameter is written with semicolons for its commas
    (``python_tapisvert_wizard(players=4,rounds=1;2)``), so that a game string, and a state
    serialised with it, reads back as it was written.

    The options take what ``load_game`` takes (``rounds=1`` or ``rounds="1"``): each
    parameter is declared with the type of its option's default, read by the option's parser.
    ``pyspiel.load_game`` itself checks every parameter against that type before the game is
    built, so there a text option must be a string (``{"rounds": "1"}``) and, in a game
    string, a number-like text ends with a semicolon (``rounds=1;``).
    """
    rules = load_game(name, players, **options)
    return _register(short_name(rules.name), rules)


def _register(short: str, rules: Game[Any]) -> str:
    """Register ``rules`` (a game with its players and options) with pyspiel as ``short``."""
    defaults: dict[str, Any] = {"players": rules.players}
    for spec in rules.option_specs:
        defaults[spec.name] = spiel_text(parameter(spec, rules.options[spec.name]))
    cls = type(rules)
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"tapisvert {short.removeprefix(short_name(''))}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=cls.max_players,
        min_num_players=cls.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )

    built = type(
        f"OpenSpiel{cls.__name__}",
        (OpenSpielGame,),
        {"game_type": game_type, "defaults": defaults, "game_name": rules.name},
    )
    pyspiel.register_game(game_type, built)
    return str(game_type.short_name)


class OpenSpielGame(pyspiel.Game):  # type: ignore[misc]
    """A tapisvert game with the sizes OpenSpiel asks for, read from its encoding.

    ``register`` makes a subclass per game (and ``register_small`` per small variant), which
    pyspiel builds with the parameters given to ``pyspiel.load_game``.
    """

    game_type: ClassVar[pyspiel.GameType]
    defaults: ClassVar[dict[str, Any]]
    game_name: ClassVar[str]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game_type = self.game_type
        params = {
            key: spiel_text(value) for key, value in {**self.defaults, **(params or {})}.items()
        }
        options = {key: rules_text(value) for key, value in params.items() if key != "players"}
        self.rules: Game[Any] = load_game(self.game_name, int(params["players"]), **options)
        self.encoding: Encoding = encoding_for(self.rules)
        self.initial: State = self.rules.new_initial_state(0)
        """What every new state starts as a clone of: OpenSpiel clones a Python state by
        making a new initial state and deep-copying the attributes over it, so that setting
        a game up afresh each time (its deck, its tables) cost a tenth of a best response."""
        bounds = self.encoding.score_bounds
        low, high = (-numpy.inf, numpy.inf) if bounds is None else bounds
        longest = self.encoding.longest_game
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.action_count,
            max_chance_outcomes=self.encoding.chance_actions,
            num_players=self.rules.players,
            min_utility=float(low),
            max_utility=float(high),
            max_game_length=UNBOUNDED_LENGTH if longest is None else longest,
        )
        super().__init__(game_type, info, params)

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self, self.initial.clone())

    def make_py_observer(
        self,
        iig_obs_type: pyspiel.IIGObservationType | None = None,
        params: dict[str, Any] | None = None,
    ) -> SeatObserver:
        return SeatObserver(self.encoding, iig_obs_type, params)


class Position:
    """The engine's side of an OpenSpiel state: its game, its encoding and its state.

    OpenSpiel clones a Python state by deep-copying its attributes (and copies its own
    history itself): a position copies as the engine's cheap clone, sharing the game.
    """

    def __init__(self, game: Game[Any], encoding: Encoding, state: State) -> None:
        self.game = game
        self.encoding = encoding
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return Position(self.game, self.encoding, self.state.clone())


class OpenSpielState(pyspiel.State):  # type: ignore[misc]
    """A tapisvert state seen through OpenSpiel's interface."""

    def __init__(self, game: OpenSpielGame, state: State) -> None:
        super().__init__(game)
        self.position = Position(game.rules, game.encoding, state)

    @property
    def state(self) -> State:
        return self.position.state

    def current_player(self) -> int:
        player = self.state.current_player()
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        return player

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        encoding, state = self.position.encoding, self.state
        if player == state.current_player():  # indices read from the state: no observation
            return sorted(encoding.legal_indices(state, state.legal_actions()))
        observation = state.observation(player)
        return sorted(
            encoding.action_index(observation, action) for action in state.legal_actions()
        )

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return sorted(self.state.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        self.state.apply_action(self._rules_action(self.state.current_player(), action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.state.action_to_string(self._rules_action(player, action))

    def _rules_action(self, player: Seat, action: int) -> Action:
        """The engine's action for OpenSpiel's ``action`` of ``player`` (a chance outcome as is)."""
        if player < 0:
            return action
        encoding, state = self.position.encoding, self.state
        if player == state.current_player():
            return encoding.action_at_state(state, action)
        return encoding.action_at(state.observation(player), action)

    def returns(self) -> list[float]:
        if not self.state.is_terminal():
            return [0.0] * self.position.game.players
        return self.state.returns()

    def resample_from_infostate(
        self, player_id: int, probability_sampler: pyspiel.UniformProbabilitySampler
    ) -> OpenSpielState:
        """A state ``player_id`` cannot tell from this one, drawn from its observation alone.

        OpenSpiel's history of the drawn state starts there: the engine draws a position,
        not the actions that led to it.
        """
        return self.resample(player_id, random.Random(probability_sampler()))

    def resample(self, seat: Seat, rng: random.Random) -> OpenSpielState:
        drawn = self.position.game.sample_state(self.state.observation(seat), rng)
        return OpenSpielState(self.get_game(), drawn)

    def __str__(self) -> str:
        return " ".join(map(str, self.state.history()))


class SeatObserver:
    """OpenSpiel's observer: a seat's (or a spectator's) observation as a tensor and a text."""

    def __init__(
        self,
        encoding: Encoding,
        iig_obs_type: pyspiel.IIGObservationType | None,
        params: dict[str, Any] | None,
    ) -> None:
        if params:
            raise ValueError(f"tapisvert observers take no parameters, got {params}")
        private = (
            pyspiel.PrivateInfoType.SINGLE_PLAYER
            if iig_obs_type is None
            else iig_obs_type.private_info
        )
        public = iig_obs_type is None or iig_obs_type.public_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS or not public:
            raise ValueError("tapisvert observes for one seat or a spectator, with public info")
        self.spectator = private == pyspiel.PrivateInfoType.NONE
        self.encoding = encoding
        self.tensor = numpy.zeros(encoding.shape, dtype=numpy.float32)
        self.dict = {field.name: self.tensor[field.start : field.stop] for field in encoding.fields}

    def observation(self, state: OpenSpielState, player: int) -> Observation:
        return state.state.observation(None if self.spectator else player)

    def set_from(self, state: OpenSpielState, player: int) -> None:
        self.encoding.write_state(self.tensor, state.state, None if self.spectator else player)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        """The observation's JSON form, keys sorted: the same observation, the same string."""
        return orjson.dumps(
            self.observation(state, player).to_dict(), option=orjson.OPT_SORT_KEYS
        ).decode()


class IsmctsBot:
    """OpenSpiel's Python IS-MCTS (random rollouts) as a tapisvert bot.

    It searches from a state drawn from its observation, and every simulation draws again
    from that observation, with a generator seeded by the bot's own: reproducible.
    """

    def __init__(self, game: Game[Any], simulations: int = ISMCTS_SIMULATIONS) -> None:
        options = dict(game.options)
        name = register(game.name, game.players, **options)
        self.game: OpenSpielGame = pyspiel.load_game(name)
        self.simulations = simulations

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        seat = observation.seat
        if seat is None:
            raise ValueError("a bot plays a seat")
        drawn = random.Random(rng.getrandbits(64))
        numbers = numpy.random.RandomState(rng.getrandbits(32))
        bot = ismcts.ISMCTSBot(
            game=self.game,
            evaluator=mcts.RandomRolloutEvaluator(1, numbers),
            uct_c=2.0,
            max_simulations=self.simulations,
            random_state=numbers,
        )
        bot.set_resampler(lambda state, player: state.resample(player, drawn))
        root = OpenSpielState(self.game, self.game.rules.sample_state(observation, drawn))
        chosen = int(bot.step(root))
        return self.game.encoding.action_at(observation, chosen)


def register_small(variant: SmallVariant | str) -> str:
    """Register a game's small variant (``GamePlugin.small_variants``), given or named, and
    return its short name: the game with the variant's players and options as its default
    parameters, under a name of its own (``python_tapisvert_wizard_6_cards``), so that it
    leaves the defaults ``register`` gave the game alone."""
    declared = {
        each.name: (game, each)
        for game, declaring in plugins().items()
        for each in declaring.small_variants
    }
    name = variant if isinstance(variant, str) else variant.name
    game, found = declared.get(name, ("", None))
    if found is None:
        raise ValueError(
            f"there is no small variant {name!r}; the small variants are: "
            + ", ".join(sorted(declared))
        )
    if not isinstance(variant, str) and variant != found:
        raise ValueError(f"the small variant {name!r} is declared as {found}, not {variant}")
    rules = load_game(game, found.players, **found.options)
    return _register(short_name(found.name.replace("-", "_")), rules)


def bot_choice(bot: Any, state: OpenSpielState, seed: int) -> int:
    """The OpenSpiel action ``bot`` picks at ``state`` with a generator seeded by ``seed``,
    given what a bot is always given: the seat's observation and the legal actions."""
    engine = state.state
    observation = engine.observation(engine.current_player())
    action = bot.choose(observation, engine.legal_actions(), random.Random(seed))
    return state.position.encoding.action_index(observation, action)


def bot_policy(game: OpenSpielGame, name: str, samples: int) -> Any:
    """Bot ``name`` as OpenSpiel's ``TabularPolicy`` over every information state: at the
    state the table keeps for each, the frequencies of its choices with ``samples`` seeds
    (a deterministic bot's are 0 and 1). A bot chooses from the observation, which is the
    information state, so one state stands for all the others of its information state
    (``same_choices`` checks it)."""
    table = policy.TabularPolicy(game)
    bot = make_bot(name, game.rules)
    for index, state in enumerate(table.states):
        legal = state.legal_actions()
        row = table.action_probability_array[index]
        row[:] = 0.0
        if len(legal) == 1:
            row[legal[0]] = 1.0
            continue
        for seed in range(samples):
            row[bot_choice(bot, state, seed)] += 1.0 / samples
    return table


def shared_information_states(game: OpenSpielGame) -> list[list[OpenSpielState]]:
    """The decision states of the whole game, grouped by the information state of the seat
    to act, for the information states that several states share."""
    groups: dict[tuple[int, str], list[OpenSpielState]] = defaultdict(list)
    every = get_all_states.get_all_states(
        game, depth_limit=-1, include_terminals=False, include_chance_states=False
    )
    for state in every.values():
        player = state.current_player()
        groups[player, state.information_state_string(player)].append(state)
    return [states for states in groups.values() if len(states) > 1]


def same_choices(
    game: OpenSpielGame, name: str, groups: list[list[OpenSpielState]], limit: int
) -> int:
    """Check that bot ``name``, given the same seeds, chooses alike at the first and the last
    state of each group (at most ``limit`` groups with a choice to make); the count checked.

    Raises ``AssertionError`` naming the two states where it did not.
    """
    bot = make_bot(name, game.rules)
    checked = 0
    for states in groups:
        if checked == limit:
            break
        first, last = states[0], states[-1]
        if len(first.legal_actions()) < 2:
            continue
        for seed in range(2):
            if bot_choice(bot, first, seed) != bot_choice(bot, last, seed):
                raise AssertionError(
                    f"{name} told apart two states of one information state: {first} / {last}"
                )
        checked += 1
    return checked

-- Kibitz's shared store. Platforms, channels, players and game ids are the
-- same text the embedded store keys its records by; records are the same
-- versioned envelopes (`{"v":2,"record":{...}}`), as jsonb. Times are
-- milliseconds since 1970 (bigint), as the records hold them.

-- Active games: one row per game, with the columns the queries look for.
CREATE TABLE games (
    platform text NOT NULL,
    channel text NOT NULL,
    id text NOT NULL,
    version bigint NOT NULL,
    record jsonb NOT NULL,
    -- When the correspondence clock must look at the game next (NULL: never).
    due_at bigint,
    -- A clock tick of one process has the game until then.
    claimed_until bigint,
    PRIMARY KEY (platform, channel, id)
);
CREATE INDEX games_by_due ON games (due_at) WHERE due_at IS NOT NULL;

-- Who plays which active game where: a player has one game per channel.
CREATE TABLE game_players (
    platform text NOT NULL,
    player text NOT NULL,
    channel text NOT NULL,
    id text NOT NULL,
    PRIMARY KEY (platform, player, channel),
    FOREIGN KEY (platform, channel, id) REFERENCES games ON UPDATE CASCADE ON DELETE CASCADE
);
CREATE INDEX game_players_by_game ON game_players (platform, channel, id);

-- Finished games.
CREATE TABLE archive (
    platform text NOT NULL,
    channel text NOT NULL,
    id text NOT NULL,
    record jsonb NOT NULL,
    finished_at bigint NOT NULL,
    PRIMARY KEY (platform, channel, id)
);

-- Finished games by player, newest first.
CREATE TABLE archive_players (
    platform text NOT NULL,
    player text NOT NULL,
    finished_at bigint NOT NULL,
    channel text NOT NULL,
    id text NOT NULL,
    PRIMARY KEY (platform, player, finished_at, channel, id),
    FOREIGN KEY (platform, channel, id) REFERENCES archive ON UPDATE CASCADE ON DELETE CASCADE
);
CREATE INDEX archive_players_by_game ON archive_players (platform, channel, id);

CREATE TABLE challenges (
    platform text NOT NULL,
    channel text NOT NULL,
    challenger text NOT NULL,
    record jsonb NOT NULL,
    PRIMARY KEY (platform, channel, challenger)
);

-- Glicko-2 ratings; `rating` and `games` repeat the record's for the leaderboard.
CREATE TABLE ratings (
    platform text NOT NULL,
    player text NOT NULL,
    variant text NOT NULL,
    record jsonb NOT NULL,
    rating double precision NOT NULL,
    games bigint NOT NULL,
    PRIMARY KEY (platform, player, variant)
);
CREATE INDEX ratings_by_variant ON ratings (platform, variant, rating DESC);

CREATE TABLE channel_settings (
    platform text NOT NULL,
    channel text NOT NULL,
    record jsonb NOT NULL,
    PRIMARY KEY (platform, channel)
);

-- Chat messages handled, so that a delivery that comes again is skipped.
CREATE TABLE handled (
    platform text NOT NULL,
    message_id text NOT NULL,
    at bigint NOT NULL,
    PRIMARY KEY (platform, message_id)
);
CREATE INDEX handled_by_time ON handled (platform, at);

-- Replies owed. `owner` is the process sending it; when that process is
-- no longer alive (see `workers`) another one claims it.
CREATE TABLE outbox (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform text NOT NULL,
    channel text NOT NULL,
    payload bytea NOT NULL,
    progress integer NOT NULL DEFAULT 0,
    at bigint NOT NULL,
    owner text
);
CREATE INDEX outbox_by_platform ON outbox (platform, seq);

-- The processes serving the bot, each alive until its last heartbeat's lease ends.
CREATE TABLE workers (
    owner text PRIMARY KEY,
    alive_until bigint NOT NULL
);

CREATE TABLE cursors (
    platform text NOT NULL,
    name text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (platform, name)
);

CREATE TABLE users (
    platform text NOT NULL,
    id text NOT NULL,
    record jsonb NOT NULL,
    PRIMARY KEY (platform, id)
);

CREATE TABLE usernames (
    platform text NOT NULL,
    username text NOT NULL,
    id text NOT NULL,
    PRIMARY KEY (platform, username)
);

CREATE TABLE legacy_usernames (
    platform text NOT NULL,
    username text NOT NULL,
    id text NOT NULL,
    PRIMARY KEY (platform, username)
);

-- When each chat may be sent to next: the times of its recent messages.
CREATE TABLE send_slots (
    platform text NOT NULL,
    chat text NOT NULL,
    slots bigint[] NOT NULL,
    PRIMARY KEY (platform, chat)
);

-- Reviews: the background analysis of a finished game, or of one round of
-- a Clash match (`round` 0 is the whole game; Clash rounds count from 1).

-- Reviews owed. A process takes a job until `claimed_until` (its lease);
-- a job whose process died is taken again when the lease has ended.
CREATE TABLE review_jobs (
    platform text NOT NULL,
    channel text NOT NULL,
    id text NOT NULL,
    round integer NOT NULL,
    record jsonb NOT NULL,
    queued_at bigint NOT NULL,
    claimed_until bigint,
    PRIMARY KEY (platform, channel, id, round)
);
CREATE INDEX review_jobs_by_time ON review_jobs (platform, queued_at);

-- Finished reviews, as the bot wrote them (the store does not read them).
CREATE TABLE reviews (
    platform text NOT NULL,
    channel text NOT NULL,
    id text NOT NULL,
    round integer NOT NULL,
    review text NOT NULL,
    PRIMARY KEY (platform, channel, id, round)
);

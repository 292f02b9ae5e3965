CREATE TABLE `capital_shards` (
	`archive_id` text NOT NULL,
	`shard` integer NOT NULL,
	`first_seq` integer NOT NULL,
	`opened_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `shard`)
);

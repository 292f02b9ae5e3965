CREATE TABLE `access_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`chunk_id` text NOT NULL,
	`channel` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `access_chunk` ON `access_events` (`archive_id`,`chunk_id`);--> statement-breakpoint
CREATE INDEX `access_time` ON `access_events` (`archive_id`,`at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`archive_id` text NOT NULL,
	`key_hash` text NOT NULL,
	`label` text DEFAULT '' NOT NULL,
	`scopes` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_archive` ON `api_keys` (`archive_id`);--> statement-breakpoint
CREATE TABLE `archives` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`params` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `capital_snapshots` (
	`archive_id` text NOT NULL,
	`seq` integer NOT NULL,
	`r2_key` text NOT NULL,
	`bytes` integer NOT NULL,
	`heads` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `change_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`op` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `change_log_archive` ON `change_log` (`archive_id`,`seq`);--> statement-breakpoint
CREATE TABLE `chunk_versions` (
	`archive_id` text NOT NULL,
	`chunk_id` text NOT NULL,
	`version` integer NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`synopsis` text NOT NULL,
	`artifact_hash` text NOT NULL,
	`content_hash` text NOT NULL,
	`content_key` text NOT NULL,
	`content_chars` integer NOT NULL,
	`entities` text NOT NULL,
	`boundaries` text NOT NULL,
	`edges` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_to` integer,
	`recorded_at` integer NOT NULL,
	`source` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`archive_id`, `chunk_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `versions_time` ON `chunk_versions` (`archive_id`,`chunk_id`,`valid_from`);--> statement-breakpoint
CREATE TABLE `chunks` (
	`archive_id` text NOT NULL,
	`chunk_id` text NOT NULL,
	`kind` text NOT NULL,
	`latest_version` integer NOT NULL,
	`first_valid_from` integer NOT NULL,
	`deprecated_at` integer,
	`deprecated_by` text,
	`vector_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `chunk_id`)
);
--> statement-breakpoint
CREATE INDEX `chunks_vector` ON `chunks` (`archive_id`,`vector_id`);--> statement-breakpoint
CREATE TABLE `edges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`src` text NOT NULL,
	`dst` text NOT NULL,
	`type` text NOT NULL,
	`weight` real NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_to` integer,
	`version` integer NOT NULL,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `edges_src` ON `edges` (`archive_id`,`src`);--> statement-breakpoint
CREATE INDEX `edges_dst` ON `edges` (`archive_id`,`dst`);--> statement-breakpoint
CREATE UNIQUE INDEX `edges_unique` ON `edges` (`archive_id`,`src`,`dst`,`type`,`valid_from`);--> statement-breakpoint
CREATE TABLE `entities` (
	`archive_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`merged_into` text,
	`merged_at` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `entity_id`)
);
--> statement-breakpoint
CREATE TABLE `entity_aliases` (
	`archive_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`alias` text NOT NULL,
	`alias_norm` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_to` integer,
	PRIMARY KEY(`archive_id`, `entity_id`, `alias_norm`, `valid_from`)
);
--> statement-breakpoint
CREATE INDEX `aliases_norm` ON `entity_aliases` (`archive_id`,`alias_norm`);--> statement-breakpoint
CREATE TABLE `entity_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`op` text NOT NULL,
	`detail` text NOT NULL,
	`at` integer NOT NULL,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `entity_events_entity` ON `entity_events` (`archive_id`,`entity_id`);--> statement-breakpoint
CREATE TABLE `session_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`session_id` text NOT NULL,
	`role` text NOT NULL,
	`text` text NOT NULL,
	`tokens` integer NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `session_events_session` ON `session_events` (`archive_id`,`session_id`,`id`);
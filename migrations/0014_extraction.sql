CREATE TABLE `extraction_cache` (
	`content_hash` text NOT NULL,
	`model` text NOT NULL,
	`result` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`content_hash`, `model`)
);
--> statement-breakpoint
ALTER TABLE `chunk_versions` ADD `extracted` text;
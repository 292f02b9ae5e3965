CREATE TABLE `reembed_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`status` text NOT NULL,
	`model` text NOT NULL,
	`dims` integer NOT NULL,
	`from_model` text,
	`from_dims` integer,
	`total` integer NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`removed` integer DEFAULT 0 NOT NULL,
	`pages` integer DEFAULT 0 NOT NULL,
	`cursor` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`target_stale` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `reembed_jobs_archive` ON `reembed_jobs` (`archive_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reembed_jobs_running` ON `reembed_jobs` (`archive_id`) WHERE status = 'running';--> statement-breakpoint
ALTER TABLE `archives` ADD `embed_model` text;--> statement-breakpoint
ALTER TABLE `archives` ADD `embed_dims` integer;--> statement-breakpoint
ALTER TABLE `archives` ADD `embed_stale_at` integer;
CREATE TABLE `ingest_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`archive_id` text NOT NULL,
	`origin` text NOT NULL,
	`ref` text NOT NULL,
	`status` text NOT NULL,
	`counts` text DEFAULT '{}' NOT NULL,
	`error` text,
	`at` integer NOT NULL,
	`duration_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ingest_log_archive` ON `ingest_log` (`archive_id`,`id`);--> statement-breakpoint
CREATE TABLE `sources` (
	`archive_id` text NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`location` text NOT NULL,
	`query` text DEFAULT '' NOT NULL,
	`interval_minutes` integer NOT NULL,
	`paused` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`next_run_at` integer NOT NULL,
	`last_run_at` integer,
	`last_change_at` integer,
	`last_status` text,
	`last_error` text,
	`failures` integer DEFAULT 0 NOT NULL,
	`etag` text,
	`last_modified` text,
	`content_hash` text,
	`state` text DEFAULT '{}' NOT NULL,
	`last_counts` text,
	PRIMARY KEY(`archive_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `sources_due` ON `sources` (`paused`,`next_run_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`archive_id` text NOT NULL,
	`webhook` text NOT NULL,
	`delivery_id` text NOT NULL,
	`kind` text NOT NULL,
	`event` text NOT NULL,
	`body_key` text NOT NULL,
	`body_sha` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`result` text,
	`error` text,
	`received_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `webhook`, `delivery_id`)
);
--> statement-breakpoint
CREATE INDEX `deliveries_status` ON `webhook_deliveries` (`archive_id`,`status`,`received_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`archive_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`secret` text NOT NULL,
	`options` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `name`)
);
--> statement-breakpoint
ALTER TABLE `edges` ADD `context` text;
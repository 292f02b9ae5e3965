CREATE TABLE `event_deliveries` (
	`archive_id` text NOT NULL,
	`id` text NOT NULL,
	`subscription` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`response_status` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `event_deliveries_sub` ON `event_deliveries` (`archive_id`,`subscription`,`created_at`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`archive_id` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`events` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`archive_id`, `name`)
);

CREATE TABLE `pending_purges` (
	`audit_id` integer PRIMARY KEY NOT NULL,
	`archive_id` text NOT NULL,
	`target` text NOT NULL,
	`target_id` text NOT NULL,
	`plan` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pending_purges_target` ON `pending_purges` (`archive_id`,`target`,`target_id`);
ALTER TABLE `access_events` ADD `session_id` text;--> statement-breakpoint
CREATE INDEX `access_session` ON `access_events` (`archive_id`,`session_id`,`at`);--> statement-breakpoint
ALTER TABLE `chunk_versions` ADD `relations` text;
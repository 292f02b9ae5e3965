CREATE TABLE `event_outcomes` (
	`archive_id` text NOT NULL,
	`event_id` text NOT NULL,
	`request` text NOT NULL,
	`claim` text NOT NULL,
	`claimed_at` integer NOT NULL,
	`annotation_id` integer,
	`body` text,
	PRIMARY KEY(`archive_id`, `event_id`),
	FOREIGN KEY (`annotation_id`) REFERENCES `annotations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_outcomes_annotation` ON `event_outcomes` (`annotation_id`);
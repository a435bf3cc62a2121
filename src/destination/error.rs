//! Why a destination could not be planned, connected, probed or found alive, by kind: a URL
//! or option refused before any I/O, a destination that does not answer, one that answers but
//! refuses or lacks what the route needs, or something on this side (a client, a file). The
//! message is the one an operator reads; the driver's error, where there is one, is its source.

use thiserror::Error;

/// A driver's error kept as the cause.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Error)]
pub enum DestinationError {
    /// An option the destination's kind does not take, found before any I/O.
    #[error(
        "relay.routes.{route}.{key} does not apply to a {kind} destination (it takes: {takes})"
    )]
    NotApplicable {
        route: String,
        key: &'static str,
        kind: &'static str,
        /// The options it takes, or "no options".
        takes: String,
    },
    /// A URL or an option's value that cannot work, found before any I/O.
    #[error("{0}")]
    Invalid(String),
    /// The destination could not be reached, or did not answer in time.
    #[error("{message}")]
    Unreachable {
        message: String,
        #[source]
        source: Option<Cause>,
    },
    /// The destination answered but refused, or lacks what the route needs (a stream, a
    /// queue, a topic, a key of the right type, free space).
    #[error("{message}")]
    Refused {
        message: String,
        #[source]
        source: Option<Cause>,
    },
    /// A client or a file on this side could not be set up.
    #[error("{message}")]
    Local {
        message: String,
        #[source]
        source: Option<Cause>,
    },
    /// A webhook's signing cannot work (an unknown scheme, a key that is not base64).
    #[error(transparent)]
    Signing(#[from] super::webhook_sign::SigningError),
    /// A route's URL needs an environment variable this process does not have.
    #[error(transparent)]
    Unset(#[from] crate::config::UnsetVariable),
    /// One route's destination failed: the key or flag that gave it (`relay.routes.orders.to`,
    /// `--to`) and why.
    #[error("{key}: {source}")]
    Route {
        key: String,
        #[source]
        source: Box<DestinationError>,
    },
}

impl DestinationError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }

    pub fn unreachable(message: impl Into<String>) -> Self {
        Self::Unreachable {
            message: message.into(),
            source: None,
        }
    }

    pub fn refused(message: impl Into<String>) -> Self {
        Self::Refused {
            message: message.into(),
            source: None,
        }
    }

    pub fn local(message: impl Into<String>) -> Self {
        Self::Local {
            message: message.into(),
            source: None,
        }
    }

    /// The same error with the driver's error behind it (its message already says it).
    pub fn because(mut self, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        if let Self::Unreachable { source, .. }
        | Self::Refused { source, .. }
        | Self::Local { source, .. } = &mut self
        {
            *source = Some(Box::new(cause));
        }
        self
    }

    /// The same error under the key or flag that gave the destination.
    pub fn for_key(self, key: impl Into<String>) -> Self {
        Self::Route {
            key: key.into(),
            source: Box::new(self),
        }
    }

    /// An error the relay names by a route's `to:` key (`relay.routes.ROUTE.to: …`), named by
    /// the flag that gave the URL instead (`--to`): the operator wrote no such key.
    pub fn given_by(self, route: &str, flag: &str) -> Self {
        match self {
            Self::Route { key, source } if key == format!("relay.routes.{route}.to") => {
                Self::Route {
                    key: flag.to_owned(),
                    source,
                }
            }
            other => other,
        }
    }
}

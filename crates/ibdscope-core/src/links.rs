//! The sibling link fields of the FIL header, and how one page that
//! verifies shows another is stale: the words of [`crate::stale`], kept
//! apart so that [`crate::space::PageProblem`] can name them.

use crate::ids::FIL_NULL;
use std::fmt;

/// A sibling link field of the FIL header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Link {
    /// FIL_PAGE_PREV.
    Prev,
    /// FIL_PAGE_NEXT.
    Next,
}

impl Link {
    /// The field's name.
    pub fn name(self) -> &'static str {
        match self {
            Link::Prev => "FIL_PAGE_PREV",
            Link::Next => "FIL_PAGE_NEXT",
        }
    }
    /// The field that should name the page back.
    pub fn back(self) -> Link {
        match self {
            Link::Prev => Link::Next,
            Link::Next => Link::Prev,
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a newer page shows a page is stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StaleHow {
    /// The newer page's `link` names this page, and this page's back link
    /// names `back` instead.
    LinkedFrom {
        /// The newer page's field.
        link: Link,
        /// What this page's back link holds.
        back: u32,
    },
    /// This page's `link` names the newer page, whose back link names
    /// `back` instead.
    LinksTo {
        /// This page's field.
        link: Link,
        /// What the newer page's back link holds.
        back: u32,
    },
    /// The link between the two crosses from one index or level to another.
    OtherTree,
    /// This page is the XDES page whose entry calls the newer page free.
    DescribesFree,
    /// This page is page 0, whose FSP_FREE_LIMIT puts the newer page past
    /// the pages ever handed out.
    BelowFreeLimit,
}

impl fmt::Display for StaleHow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StaleHow::LinkedFrom { link, back } => write!(
                f,
                "its {link} names this page, but this page's {} = {}",
                link.back(),
                Target(back)
            ),
            StaleHow::LinksTo { link, back } => write!(
                f,
                "this page's {link} names it, but its {} = {}",
                link.back(),
                Target(back)
            ),
            StaleHow::OtherTree => f.write_str("a sibling link joins pages of two indexes or levels"),
            StaleHow::DescribesFree => {
                f.write_str("this page's extent descriptor calls it free, yet it was written later")
            }
            StaleHow::BelowFreeLimit => f.write_str(
                "this page's FSP_FREE_LIMIT puts it past every page handed out, yet it was written later",
            ),
        }
    }
}

/// A link target as text (`FIL_NULL` by name).
struct Target(u32);

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == FIL_NULL {
            f.write_str("FIL_NULL")
        } else {
            write!(f, "{}", self.0)
        }
    }
}
